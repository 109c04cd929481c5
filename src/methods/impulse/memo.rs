//! The set-up of a face contact's resolution, kept per pair while its geometry stays the same.
//!
//! A face resolution's set-up (the face's shape, K_eff, Mirtich's contact frame) depends only on the face's
//! geometry and the two rigid units, so it is kept per pair until the next detection and reused where its inputs
//! are the same bits (exact); point resolutions are not kept. See docs/methods/impulse.md, "Kept face set-ups".

use super::law::{Face, Frame};
use crate::math::{Mat3, Vec3};

/// The bits of a face set-up's inputs: the detection, the units' inverse masses, the lever arms, the normal, the
/// locked axes (up to three) and their count.
type FaceKey = [u64; 22];

/// The key of a face set-up in detection `epoch`.
fn key(epoch: u64, (ima, imb): (f64, f64), (ra, rb): (Vec3, Vec3), n: Vec3, axes: &[Vec3]) -> FaceKey {
    let mut k = [0u64; 22];
    k[0] = epoch;
    k[1] = ima.to_bits();
    k[2] = imb.to_bits();
    for (i, v) in [ra, rb, n].iter().chain(axes).enumerate() {
        k[3 + 3 * i] = v.x.to_bits();
        k[4 + 3 * i] = v.y.to_bits();
        k[5 + 3 * i] = v.z.to_bits();
    }
    k[21] = axes.len() as u64;
    k
}

/// Whether two keys are the same bits (without a branch per word, and not by a library `memcmp`, which cost
/// more than the comparison).
fn same<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The shape of a pair's face: its centre (lever arms `ra`, `rb`), the axes about which it carries a moment
/// (`axes[..locked]`) and its radius `extent` (sweep.rs `face_shape`). It depends only on which of the pair's
/// points form the face and on the normal, so it is kept by those.
#[derive(Debug, Clone, Copy)]
pub(super) struct FaceShape {
    pub(super) axes: [Vec3; 3],
    pub(super) locked: usize,
    pub(super) extent: f64,
    pub(super) ra: Vec3,
    pub(super) rb: Vec3,
}

/// A kept face set-up: the face (K_eff and its moment terms), and Mirtich's frame of K_eff once asked for.
#[derive(Debug, Clone, Copy)]
pub(super) struct FaceSetUp {
    key: FaceKey,
    pub(super) face: Face,
    frame: Option<Frame>,
}

impl FaceSetUp {
    /// Mirtich's frame of K_eff at `n` (the key's normal).
    pub(super) fn frame(&mut self, n: Vec3) -> &mut Frame {
        let k = self.face.k_eff();
        self.frame.get_or_insert_with(|| Frame::new(&k, n))
    }
}

/// The kept set-ups of the detected pairs (a face slot and a face shape each; epoch 0 marks an empty one), and the
/// current detection.
#[derive(Debug, Default)]
pub(super) struct Memos {
    faces: Vec<FaceSetUp>,
    /// Per pair: the detection, the mask of the face's points and the normal's bits, and the face's shape.
    shapes: Vec<([u64; 5], FaceShape)>,
    epoch: u64,
}

impl Memos {
    /// The solver bodies' inertias changed: everything kept so far is stale.
    pub(super) fn stale(&mut self) {
        self.epoch += 1;
    }

    /// A new detection of `groups` pairs: everything kept so far is stale (other pairs, points and inertias).
    pub(super) fn begin(&mut self, groups: usize) {
        self.stale();
        let face = Face::new(&Mat3::ZERO, &Mat3::ZERO, Vec3::ZERO, &Mat3::ZERO, Vec3::ZERO, &[]);
        self.faces.resize(groups, FaceSetUp { key: [0; 22], face, frame: None });
        let shape = FaceShape { axes: [Vec3::ZERO; 3], locked: 0, extent: 0.0, ra: Vec3::ZERO, rb: Vec3::ZERO };
        self.shapes.resize(groups, ([0; 5], shape));
    }

    /// Group `g`'s face shape for the face formed by the points of `mask` (bit k: the pair's point k; `None`:
    /// not kept) with normal `n`: the kept one when these are the same since the detection, else `make`'s, kept.
    pub(super) fn shape(&mut self, g: usize, mask: Option<u64>, n: Vec3, make: impl FnOnce() -> FaceShape) -> FaceShape {
        let Some(mask) = mask else { return make() };
        let key = [self.epoch, mask, n.x.to_bits(), n.y.to_bits(), n.z.to_bits()];
        let s = &mut self.shapes[g];
        if !same(&s.0, &key) {
            *s = (key, make());
        }
        s.1
    }

    /// Group `g`'s face set-up for units of inverse masses `masses` at lever arms `arms` (the face's centre), normal
    /// `n` and locked `axes`: the kept one when its inputs are the same bits since the detection, else `make`'s,
    /// kept.
    pub(super) fn face(
        &mut self,
        g: usize,
        masses: (f64, f64),
        arms: (Vec3, Vec3),
        n: Vec3,
        axes: &[Vec3],
        make: impl FnOnce() -> Face,
    ) -> &mut FaceSetUp {
        let key = key(self.epoch, masses, arms, n, axes);
        let s = &mut self.faces[g];
        if !same(&s.key, &key) {
            *s = FaceSetUp { key, face: make(), frame: None };
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::impulse::law::{collision_matrix, mirtich, Coefficients};

    #[test]
    fn a_kept_set_up_gives_the_bits_of_a_fresh_one_and_a_changed_key_rebuilds() {
        let inv_i = Mat3::from_diagonal(Vec3::new(6.0, 5.0, 4.0));
        let ra = Vec3::new(0.1, -0.2, 0.3);
        let n = Vec3::new(0.1, 0.0, 1.0).normalize();
        let axes = [Vec3::new(1.0, 0.0, -0.1).normalize(), n];
        let c = Coefficients { restitution: 0.2, friction: 0.4, static_friction: 0.5 };
        // the face of a free body A (inverse mass `ima`, inertia `inv_i`, or frozen: 0 and 0) and a body B
        let face_at = |ima: f64, rb: Vec3, axes: &[Vec3]| {
            let iia = if ima > 0.0 { inv_i } else { Mat3::ZERO };
            Face::new(&collision_matrix(ima, &iia, ra, 1.0, &inv_i, rb), &iia, ra, &inv_i, rb, axes)
        };
        let mut memos = Memos::default();
        memos.begin(3);
        let mut built = 0;
        let cases = [
            (Vec3::new(0.3, 0.1, -1.0), 0.5, Vec3::new(0.5, 0.4, -0.5), &axes[..]),
            // the same geometry: kept
            (Vec3::new(-0.2, 0.4, -0.7), 0.5, Vec3::new(0.5, 0.4, -0.5), &axes[..]),
            // A frozen (its inverse mass 0 in the key): built again
            (Vec3::new(-0.2, 0.4, -0.7), 0.0, Vec3::new(0.5, 0.4, -0.5), &axes[..]),
            // other lever arms, then one locked axis fewer: built again each time
            (Vec3::new(0.0, 0.1, -2.0), 0.0, Vec3::new(0.45, 0.36, -0.45), &axes[..]),
            (Vec3::new(0.0, 0.1, -2.0), 0.0, Vec3::new(0.45, 0.36, -0.45), &axes[1..]),
        ];
        for (u, ima, rb, axes) in cases {
            let s = memos.face(1, (ima, 1.0), (ra, rb), n, axes, || {
                built += 1;
                face_at(ima, rb, axes)
            });
            let (kept_k, kept_u) = s.face.reduced(u, Vec3::new(0.1, 0.2, 0.3));
            let kept = s.frame(n).mirtich(kept_u, c);
            let fresh_face = face_at(ima, rb, axes);
            let (k, ue) = fresh_face.reduced(u, Vec3::new(0.1, 0.2, 0.3));
            let fresh = mirtich(&k, ue, n, c);
            assert_eq!(kept_k.to_cols_array().map(f64::to_bits), k.to_cols_array().map(f64::to_bits));
            assert_eq!(kept.to_array().map(f64::to_bits), fresh.to_array().map(f64::to_bits));
        }
        assert_eq!(built, 4);
        // a new detection, and stale inertias, make the same geometry stale
        let (ima, rb) = (0.0, Vec3::new(0.45, 0.36, -0.45));
        for k in 0..2 {
            if k == 0 {
                memos.begin(3);
            } else {
                memos.stale();
            }
            memos.face(1, (ima, 1.0), (ra, rb), n, &axes[1..], || {
                built += 1;
                face_at(ima, rb, &axes[1..])
            });
        }
        assert_eq!(built, 6);
    }

    /// A frame keeps its sticking rate and resumed direction per friction coefficient: the same frame used with
    /// other coefficients gives what a fresh frame gives.
    #[test]
    fn a_kept_frame_with_other_friction_gives_a_fresh_frames_bits() {
        let inv_i = Mat3::from_diagonal(Vec3::splat(6.0));
        let k = collision_matrix(0.0, &Mat3::ZERO, Vec3::ZERO, 1.0, &inv_i, Vec3::new(0.5, 0.5, -0.5));
        let mut frame = Frame::new(&k, Vec3::Z);
        // sticking stable at μ_s 0.9, unstable at 0.1 (it resumes sliding); a slide that stops, and a head-on hit
        for (u, mu) in [
            (Vec3::new(0.01, 0.0, -1.0), 0.9),
            (Vec3::new(0.0, 0.0, -1.0), 0.1),
            (Vec3::new(0.0, 0.0, -1.0), 0.9),
            (Vec3::new(0.0, 0.0, -1.0), 0.15),
        ] {
            let c = Coefficients { restitution: 0.3, friction: mu, static_friction: mu };
            let kept = frame.mirtich(u, c);
            let fresh = mirtich(&k, u, Vec3::Z, c);
            assert_eq!(kept.to_array().map(f64::to_bits), fresh.to_array().map(f64::to_bits), "μ {mu}");
        }
    }
}
