"""The README's Python example (CI runs it from the wheel in a fresh virtual environment)."""

import cairn

world = cairn.World.from_file("pyramid20", method="lcp")  # a bundled scene, by name
world.step(60)  # one simulated second (dt = 1/60 s); the interpreter's lock is released while stepping
poses = world.poses()  # (bodies, 3, 4): [R | p] of each body's reference frame
print(f"t = {world.time:.2f} s, {len(world)} bodies, {world.last_stats['contacts']} contacts")
