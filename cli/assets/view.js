// cairn view: plays back one or more runs (cli/src/view.rs writes the data this reads).
// Z is up. Poses are per frame and body [px, py, pz, qx, qy, qz, qw] (Float32, base64).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const D = JSON.parse(document.getElementById('cairn-data').textContent);
const statusEl = document.getElementById('status');

function decode(s, Type) {
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

THREE.Object3D.DEFAULT_UP.set(0, 0, 1);
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.prepend(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe3e8);
scene.add(new THREE.HemisphereLight(0xffffff, 0x667080, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(0.4, -0.7, 1.0);
scene.add(sun);

// shapes: each mesh once
const geometries = D.shapes.map((s) => {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(decode(s.vertices, Float32Array), 3));
  g.setIndex(new THREE.BufferAttribute(decode(s.triangles, Uint32Array), 1));
  g.computeVertexNormals();
  return g;
});

const runs = D.runs.map((r) => ({
  ...r,
  B: r.bodies.length,
  F: r.times.length,
  poses: decode(r.poses, Float32Array),
  com: decode(r.com, Float32Array),
  stageMs: decode(r.stage_ms, Float32Array),
  contactCount: decode(r.contact_count, Float32Array),
  contactOffsets: r.contact_offsets ? decode(r.contact_offsets, Uint32Array) : null,
  contactData: r.contact_data ? decode(r.contact_data, Float32Array) : null,
  // per frame and body 1 when asleep (sleep.npy), or null when nothing slept
  asleep: r.asleep ? decode(r.asleep, Uint8Array) : null,
  group: new THREE.Group(),
  meshes: [],
}));

// the master clock: the run with the most frames; every run shows its frame nearest in time
const master = runs.reduce((a, b) => (b.F > a.F ? b : a), runs[0]);
for (const r of runs) {
  r.map = new Int32Array(master.F);
  let j = 0;
  for (let f = 0; f < master.F; f++) {
    const t = master.times[f];
    while (j + 1 < r.F && Math.abs(r.times[j + 1] - t) <= Math.abs(r.times[j] - t)) j++;
    r.map[f] = j;
  }
}

// bounds of the dynamic bodies over the whole motion (all bodies when none is dynamic) frame the camera: every
// frame of a short run, about 400 spread over a long one, and the last
const box = new THREE.Box3();
for (const r of runs) {
  const dyn = r.kinds.some((k) => k !== 'static');
  const every = Math.max(1, Math.floor(r.F / 400));
  const frames = [];
  for (let f = 0; f < r.F; f += every) frames.push(f);
  if (frames[frames.length - 1] !== r.F - 1) frames.push(r.F - 1);
  for (const f of frames) {
    for (let i = 0; i < r.B; i++) {
      if (dyn && r.kinds[i] === 'static') continue;
      const g = geometries[r.shape[i]];
      if (!g.boundingSphere) g.computeBoundingSphere();
      const s = g.boundingSphere.radius;
      const o = 7 * (r.B * f + i);
      const p = new THREE.Vector3(r.poses[o], r.poses[o + 1], r.poses[o + 2]);
      box.expandByPoint(p.clone().addScalar(s));
      box.expandByPoint(p.clone().addScalar(-s));
    }
  }
}
// what the camera frames, for tests: min x y z, max x y z
document.body.dataset.framed = [...box.min.toArray(), ...box.max.toArray()].map((v) => v.toFixed(4)).join(' ');
const size = box.getSize(new THREE.Vector3());
const extent = Math.max(size.x, size.y, size.z, 1e-3);

// one instanced mesh per run and shape; dynamic bodies in the run's colour, static grey, kinematic lighter
const white = new THREE.Color(1, 1, 1);
for (const r of runs) {
  const colour = new THREE.Color(r.color);
  const byShape = new Map();
  r.slot = new Array(r.B);
  r.baseColor = new Array(r.B);
  r.shownAsleep = new Uint8Array(r.B);
  for (let i = 0; i < r.B; i++) {
    if (!byShape.has(r.shape[i])) byShape.set(r.shape[i], []);
    const list = byShape.get(r.shape[i]);
    r.slot[i] = [r.shape[i], list.length];
    list.push(i);
  }
  for (const [shape, bodies] of byShape) {
    const material = new THREE.MeshStandardMaterial({ color: 0xffffff, flatShading: true, roughness: 0.75, metalness: 0.0 });
    const mesh = new THREE.InstancedMesh(geometries[shape], material, bodies.length);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.userData = { run: r, bodies };
    bodies.forEach((b, k) => {
      const kind = r.kinds[b];
      // a body's own colour (scene `color`, MJCF `rgba`, URDF material) when the page shows one run; with
      // several, each run in its method's colour
      const own = runs.length === 1 && r.colors && r.colors[b] ? new THREE.Color(r.colors[b]) : null;
      const c = own || (kind === 'static' ? new THREE.Color(0x9aa0a8) : kind === 'kinematic' ? colour.clone().lerp(white, 0.5) : colour);
      mesh.setColorAt(k, c);
      r.baseColor[b] = c;
    });
    mesh.frustumCulled = false;
    r.meshes[shape] = mesh;
    r.group.add(mesh);
  }
  // contact overlay: points and normals of the frame
  if (r.contactOffsets) {
    let most = 0;
    for (let f = 0; f < r.F; f++) most = Math.max(most, r.contactOffsets[f + 1] - r.contactOffsets[f]);
    const pg = new THREE.BufferGeometry();
    pg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * Math.max(most, 1)), 3));
    const lg = new THREE.BufferGeometry();
    lg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * Math.max(most, 1)), 3));
    r.contactPoints = new THREE.Points(pg, new THREE.PointsMaterial({ color: 0xd01060, size: 6, sizeAttenuation: false, depthTest: false }));
    r.contactNormals = new THREE.LineSegments(lg, new THREE.LineBasicMaterial({ color: 0x1060d0, depthTest: false }));
    r.contactPoints.renderOrder = r.contactNormals.renderOrder = 1;
    r.contactPoints.frustumCulled = r.contactNormals.frustumCulled = false;
    r.contactPoints.visible = r.contactNormals.visible = false;
    r.group.add(r.contactPoints, r.contactNormals);
  }
  scene.add(r.group);
}

const grid = new THREE.GridHelper(Math.ceil(extent * 3), Math.min(60, Math.ceil(extent * 3)), 0x667080, 0xb0b6be);
grid.rotation.x = Math.PI / 2;
grid.position.set(box.getCenter(new THREE.Vector3()).x, box.getCenter(new THREE.Vector3()).y, 1e-3 * extent);
scene.add(grid);
scene.add(new THREE.AxesHelper(extent * 0.3));

// layout: side by side along x, or overlaid
const params = new URLSearchParams(location.hash.slice(1));
const layoutSel = document.getElementById('layout');
layoutSel.value = params.get('layout') === 'overlay' ? 'overlay' : 'side';
if (runs.length < 2) layoutSel.style.display = 'none';
function layout() {
  const step = layoutSel.value === 'side' ? size.x + 0.25 * extent : 0;
  runs.forEach((r, k) => r.group.position.set((k - (runs.length - 1) / 2) * step, 0, 0));
}
layout();
layoutSel.onchange = () => { layout(); frame(current); };

const camera = new THREE.PerspectiveCamera(40, window.innerWidth / window.innerHeight, extent * 1e-3, extent * 200);
function frameCamera() {
  const centre = box.getCenter(new THREE.Vector3());
  const wide = layoutSel.value === 'side' ? runs.length : 1;
  const radius = 0.5 * Math.max(size.length(), (size.x + 0.25 * extent) * wide);
  const distance = radius / Math.tan((camera.fov * Math.PI) / 360) * 1.1;
  camera.position.copy(centre).add(new THREE.Vector3(0.35, -1.0, 0.45).normalize().multiplyScalar(distance));
  controls.target.copy(centre);
  controls.update();
}
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
frameCamera();

// legend
document.getElementById('legend').innerHTML = runs
  .map((r) => `<div><span style="background:${r.color}"></span>${r.label} (${r.B} bodies, ${r.F} frames)</div>`)
  .join('');

// poses of frame f into the instance matrices
const m = new THREE.Matrix4();
const q = new THREE.Quaternion();
const p = new THREE.Vector3();
const one = new THREE.Vector3(1, 1, 1);
let current = 0;
function frame(f) {
  current = Math.max(0, Math.min(master.F - 1, f | 0));
  for (const r of runs) {
    const rf = r.map[current];
    const base = 7 * r.B * rf;
    for (let i = 0; i < r.B; i++) {
      const o = base + 7 * i;
      p.set(r.poses[o], r.poses[o + 1], r.poses[o + 2]);
      q.set(r.poses[o + 3], r.poses[o + 4], r.poses[o + 5], r.poses[o + 6]);
      m.compose(p, q, one);
      const [shape, k] = r.slot[i];
      m.toArray(r.meshes[shape].instanceMatrix.array, 16 * k);
    }
    for (const mesh of r.meshes) if (mesh) mesh.instanceMatrix.needsUpdate = true;
    if (r.contactPoints && r.contactPoints.visible) contacts(r, rf);
    if (r.asleep) sleepColours(r, rf);
  }
  slider.value = current;
  const asleep = runs.reduce((n, r) => n + r.shownAsleep.reduce((a, b) => a + b, 0), 0);
  timeEl.textContent = `t = ${master.times[current].toFixed(3)} s  frame ${current}/${master.F - 1}` + (asleep ? `  asleep ${asleep}` : '');
  timeEl.dataset.asleep = asleep;
  if (selected) info();
}

// sleeping bodies are drawn darker (the body's colour at 45%)
function sleepColours(r, rf) {
  const base = r.B * rf;
  for (let i = 0; i < r.B; i++) {
    const a = r.asleep[base + i];
    if (a === r.shownAsleep[i]) continue;
    r.shownAsleep[i] = a;
    const [shape, k] = r.slot[i];
    const mesh = r.meshes[shape];
    mesh.setColorAt(k, a ? r.baseColor[i].clone().multiplyScalar(0.45) : r.baseColor[i]);
    mesh.instanceColor.needsUpdate = true;
  }
}

function contacts(r, rf) {
  const a = r.contactOffsets[rf], b = r.contactOffsets[rf + 1];
  const pts = r.contactPoints.geometry.attributes.position, lines = r.contactNormals.geometry.attributes.position;
  const len = 0.08 * extent;
  for (let c = a; c < b; c++) {
    const d = 6 * c, k = c - a;
    pts.array.set(r.contactData.subarray(d, d + 3), 3 * k);
    lines.array.set(r.contactData.subarray(d, d + 3), 6 * k);
    for (let j = 0; j < 3; j++) lines.array[6 * k + 3 + j] = r.contactData[d + j] + len * r.contactData[d + 3 + j];
  }
  r.contactPoints.geometry.setDrawRange(0, b - a);
  r.contactNormals.geometry.setDrawRange(0, 2 * (b - a));
  pts.needsUpdate = lines.needsUpdate = true;
}

// controls
const slider = document.getElementById('slider');
const timeEl = document.getElementById('time');
const playBtn = document.getElementById('play');
const speedSel = document.getElementById('speed');
slider.max = master.F - 1;
let playing = false;
let simTime = 0;
function setPlaying(on) {
  playing = on;
  playBtn.innerHTML = on ? '&#10074;&#10074;' : '&#9654;';
  simTime = master.times[current];
}
playBtn.onclick = () => setPlaying(!playing);
document.getElementById('prev').onclick = () => { setPlaying(false); frame(current - 1); };
document.getElementById('next').onclick = () => { setPlaying(false); frame(current + 1); };
slider.oninput = () => { setPlaying(false); frame(+slider.value); };
window.addEventListener('keydown', (e) => {
  if (e.key === ' ') { setPlaying(!playing); e.preventDefault(); }
  if (e.key === 'ArrowLeft') { setPlaying(false); frame(current - 1); }
  if (e.key === 'ArrowRight') { setPlaying(false); frame(current + 1); }
});
const contactsBox = document.getElementById('contacts');
if (!runs.some((r) => r.contactOffsets)) document.getElementById('contacts-label').style.display = 'none';
contactsBox.checked = params.get('contacts') === '1';
function showContacts() {
  for (const r of runs) if (r.contactPoints) r.contactPoints.visible = r.contactNormals.visible = contactsBox.checked;
  frame(current);
}
contactsBox.onchange = showContacts;

// picking: click (not drag) a body to see its name, position, velocity and the frame's stage timings
const info = () => {
  const el = document.getElementById('info');
  if (!selected) { el.style.display = 'none'; return; }
  const { r, i } = selected;
  const rf = r.map[current];
  const at = (g) => {
    const o = 7 * (r.B * g + i);
    const pos = new THREE.Vector3(r.poses[o], r.poses[o + 1], r.poses[o + 2]);
    const rot = new THREE.Quaternion(r.poses[o + 3], r.poses[o + 4], r.poses[o + 5], r.poses[o + 6]);
    return { origin: pos, com: new THREE.Vector3(r.com[3 * i], r.com[3 * i + 1], r.com[3 * i + 2]).applyQuaternion(rot).add(pos) };
  };
  const now = at(rf);
  const g0 = Math.max(0, rf - 1), g1 = Math.min(r.F - 1, rf + 1);
  const v = g1 > g0 ? at(g1).com.sub(at(g0).com).divideScalar(r.times[g1] - r.times[g0]) : new THREE.Vector3();
  const fmt = (x) => `[${x.x.toFixed(4)}, ${x.y.toFixed(4)}, ${x.z.toFixed(4)}]`;
  const S = r.stages.length;
  let total = 0;
  const stages = r.stages.map((s, k) => { const ms = r.stageMs[S * rf + k]; total += ms; return `  ${s.padEnd(12)} ${ms.toFixed(3)} ms`; });
  el.textContent = `${r.bodies[i]}  (${r.kinds[i]}, ${r.label})\nframe ${rf}, t = ${r.times[rf].toFixed(4)} s, step ${r.steps[rf]}\n` +
    `origin   ${fmt(now.origin)} m\ncentre   ${fmt(now.com)} m\nvelocity ${fmt(v)} m/s (centre, from frames)\n` +
    `contacts ${r.contactCount[rf]}\nstages of step ${r.metric_steps[rf]}:\n${stages.join('\n')}\n  ${'total'.padEnd(12)} ${total.toFixed(3)} ms`;
  el.style.display = 'block';
};
let selected = null;
const raycaster = new THREE.Raycaster();
let down = null;
renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
renderer.domElement.addEventListener('pointerup', (e) => {
  if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
  pick(e.clientX, e.clientY);
});
function pick(x, y) {
  const ndc = new THREE.Vector2((x / window.innerWidth) * 2 - 1, -(y / window.innerHeight) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const meshes = runs.flatMap((r) => r.meshes.filter(Boolean));
  for (const mesh of meshes) mesh.computeBoundingSphere();
  const hit = raycaster.intersectObjects(meshes, false)[0];
  selected = hit ? { r: hit.object.userData.run, i: hit.object.userData.bodies[hit.instanceId] } : null;
  info();
}

window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});

// the start frame: #frame=N or #t=seconds (paused there); else frame 0 and playing
let start = 0;
if (params.has('frame')) start = +params.get('frame');
else if (params.has('t')) {
  const t = +params.get('t');
  start = master.times.reduce((best, x, f) => (Math.abs(x - t) < Math.abs(master.times[best] - t) ? f : best), 0);
}
if (!Number.isFinite(start)) throw new Error(`bad start frame in the URL: ${location.hash}`);
showContacts();
frame(start);
renderer.render(scene, camera);
// #click=X,Y: as if the page were clicked there (CSS pixels), e.g. to open a body's panel from a link or a test
if (params.has('click')) {
  const [x, y] = params.get('click').split(',').map(Number);
  pick(x, y);
  renderer.render(scene, camera);
}

// #bench: time the pose update of every frame (what playback costs per frame besides drawing; in a browser with
// a real clock: under headless chromium's --virtual-time-budget the page's clock stands still)
let benchNote = '';
if (params.has('bench')) {
  const t0 = performance.now();
  for (let f = 0; f < master.F; f++) frame(f);
  benchNote = ` pose-update-ms=${((performance.now() - t0) / master.F).toFixed(3)}`;
  frame(start);
  renderer.render(scene, camera);
}
if (statusEl.dataset.state !== 'error') {
  statusEl.dataset.state = 'ok';
  const bodies = runs.reduce((n, r) => n + r.B, 0);
  statusEl.textContent = `ok frame=${current} runs=${runs.length} bodies=${bodies} frames=${master.F}${benchNote}`;
  document.title = `cairn view: ${D.title}`;
}
if (!params.has('frame') && !params.has('t')) setPlaying(true);

let last = performance.now(), frames = 0, fpsT = last;
const fpsEl = document.getElementById('fps');
function loop(now) {
  requestAnimationFrame(loop);
  const dt = Math.min(0.1, (now - last) / 1000);
  last = now;
  if (playing) {
    simTime += dt * +speedSel.value;
    const end = master.times[master.F - 1];
    if (simTime > end) simTime = master.times[0];
    let f = current;
    if (master.times[f] > simTime) f = 0;
    while (f + 1 < master.F && master.times[f + 1] <= simTime) f++;
    if (f !== current) frame(f);
  }
  renderer.render(scene, camera);
  frames++;
  if (now - fpsT > 1000) { fpsEl.textContent = `${Math.round((frames * 1000) / (now - fpsT))} fps`; frames = 0; fpsT = now; }
}
requestAnimationFrame(loop);
