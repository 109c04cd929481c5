#!/usr/bin/env python3
"""Writes a house-of-cards scene for `abd` (source Fig. 7): N levels of card tents, flat cards bridging adjacent
tents end to end, and two boxes falling on the top.

Level i (from the bottom) has N - i tents, 0.296 m apart, centred; each tent is two 0.3 x 0.2 x 0.004 m cards
leaning 20 degrees from the vertical, 1 mm apart at the apex and 1 mm above what they stand on. Between adjacent
tents lies a flat card, 1 mm above the apexes: inside the row the flat cards lie end to end, 1 mm apart over
the middle of each apex, so that an inner apex carries one card end on each of its two leaning cards; the outermost
flat cards reach over the whole outer apex (a half-loaded tent would push its unloaded card out). The tents of the
next level stand on the flat cards, centred between the tents below.

usage: tools/gen_house_of_cards.py LEVELS > scenes/house_of_cards.toml
"""
import math
import sys

L, W, T = 0.3, 0.2, 0.004          # card length, width, thickness
LEAN = math.radians(20.0)
GAP = 0.001
SPACING = 0.296                    # tent centres: an outermost flat card (length L) spans a whole apex and half the next


def card_points(cx, z0, side):
    """Corner points of a leaning card of the tent centred at cx, standing at z0; side +1 right, -1 left."""
    ax = (-math.sin(LEAN) * L, math.cos(LEAN) * L)      # along the card, towards the apex (right card)
    tk = (math.cos(LEAN) * T, math.sin(LEAN) * T)       # through the thickness (right card)
    p0 = (GAP / 2 + math.sin(LEAN) * L, z0 + GAP)       # bottom inner corner, relative to cx (right card)
    pts = []
    for (x, z) in [p0, (p0[0] + tk[0], p0[1] + tk[1]), (p0[0] + ax[0], p0[1] + ax[1]),
                   (p0[0] + ax[0] + tk[0], p0[1] + ax[1] + tk[1])]:
        for y in (-W / 2, W / 2):
            pts.append((cx + side * x, y, z))
    return pts


def fmt(pts):
    return "[" + ", ".join(f"[{x:.7f}, {y:.7f}, {z:.7f}]" for (x, y, z) in pts) + "]"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    apex = GAP + math.cos(LEAN) * L + math.sin(LEAN) * T   # tent height above its base
    pitch = apex + GAP + T                                 # base of one level to the base of the next
    cards = []
    for i in range(n):
        z0 = i * pitch
        k = n - i
        centres = [(j - (k - 1) / 2) * SPACING for j in range(k)]
        for cx in centres:
            cards.append(card_points(cx, z0, +1))
            cards.append(card_points(cx, z0, -1))
        over = GAP / 2 + math.sin(LEAN) * T + GAP / 2     # past the outer edge of an apex
        for m, (a, b) in enumerate(zip(centres, centres[1:])):
            x0, x1 = a + GAP / 2, b - GAP / 2
            if m == 0:
                x0 = a - over
            if m == k - 2:
                x1 = b + over
            zb = z0 + apex + GAP
            cards.append([(x, y, z) for x in (x0, x1) for y in (-W / 2, W / 2) for z in (zb, zb + T)])
    top = (n - 1) * pitch + apex
    width = n * SPACING + 0.4
    total = len(cards)
    print(f"# house_of_cards (source Fig. 7, {n} levels, {total} cards; written by tools/gen_house_of_cards.py {n}):")
    print(f"# tents of two cards leaning 20 degrees, flat cards bridging the tents apex to apex, held by static friction")
    print(f"# (mu = 0.8); two boxes fall on the top from 0.8 m above it. Cards are 0.3 x 0.2 x 0.004 m, 1 mm apart where")
    print(f"# they meet.")
    print("format = 1\n")
    print("[world]\ndt = 0.01\nduration = 1.5\nmethod = \"abd\"\n")
    print("[solver.abd]\ndhat = 0.0005\nfriction_velocity = 0.0001\n")
    print("[[material]]\nname = \"card\"\ndensity = 700.0\nfriction = 0.8\n")
    print("[[body]]\nname = \"ground\"\nkind = \"static\"\nmaterial = \"card\"")
    print(f"shape = {{ type = \"box\", size = [{width:.3f}, 1.0, 0.2] }}\nposition = [0.0, 0.0, -0.1]\n")
    for c, pts in enumerate(cards):
        print(f"[[body]]\nname = \"card{c}\"\nmaterial = \"card\"\nshape = {{ type = \"convex\", points = {fmt(pts)} }}\n")
    for b, (x, y, dz) in enumerate([(-0.05, 0.0, 0.8), (0.12, 0.03, 0.95)]):
        print(f"[[body]]\nname = \"box{b}\"\nmaterial = \"card\"\nshape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}")
        print(f"position = [{x}, {y}, {top + dz + 0.05:.4f}]\n")


main()
