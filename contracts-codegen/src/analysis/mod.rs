//! analysis: what the emitters, the corpus and the differ read off a checked model, computed
//! once per model ([`Model::analysis`]) instead of re-derived by each of them.
//!
//! | question                                  | answer                  | read by                 |
//! |-------------------------------------------|-------------------------|-------------------------|
//! | which way does a type travel?             | [`direction`]           | compat, growth          |
//! | which enums and unions may grow?          | [`Growth`]              | emit::rust, compat      |
//! | which types hold themselves, and where?   | [`recursion`]           | emit::rust, emit::typescript, check |
//! | which structs are typed frames?           | [`frames`]              | every emitter           |
//! | which untagged variants are picked how?   | [`picks`]               | emit::typescript        |
//! | which types hold text (have a view)?      | [`text`]                | emit::rust's views      |
//! | which structs have a flat view?           | [`text::flats`]         | emit::rust's envelopes  |
//!
//! Every answer is about the model's own types, keyed by name; a base's are its own
//! analysis's (`model.base(p).analysis()`). Only a checked model is analysed: `lower` and
//! `check` never ask, except `check` for a recursion path in a message.

pub mod direction;
pub mod frames;
pub mod picks;
pub mod recursion;
pub mod text;

use crate::compat::Growth;
use crate::model::{Model, TypeRef};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

pub use direction::Directions;
pub use frames::TypedFrame;
pub use picks::Pick;

/// The analysis of one model.
#[derive(Debug)]
pub struct Analysis {
    /// Which way each named type travels (this model's and its bases' as it reaches them).
    pub directions: Directions,
    /// Which enums and unions may gain a value or a variant compatibly.
    pub growth: Growth,
    /// Own types' strongly connected components (recursion), and the slots held in a box.
    pub recursion: recursion::Recursion,
    /// Own structs with a `#[table]` field, by name.
    pub frames: BTreeMap<String, TypedFrame>,
    /// Own untagged unions' variants with the literal keys that pick them, by union name.
    pub picks: BTreeMap<String, Vec<Pick>>,
    /// Own structs and unions that hold text somewhere in their value (and so have a view).
    pub texts: BTreeSet<String>,
    /// Own structs whose view is flat and decodes itself (the frame envelopes).
    pub flats: BTreeSet<String>,
}

impl Analysis {
    /// Analyses a checked model (its bases are analysed by their own models).
    pub fn of(model: &Model) -> Analysis {
        let directions = direction::directions(model);
        let growth = Growth::of(model, &directions);
        let texts = text::texts(model);
        Analysis {
            recursion: recursion::Recursion::of(model),
            frames: frames::typed_frames(model),
            picks: picks::union_picks(model),
            flats: text::flats(model, &texts),
            texts,
            directions,
            growth,
        }
    }

    /// Whether the type `r` names (written in `model`, whose analysis this is) holds text:
    /// asked of the model that declares it.
    pub fn holds_text(&self, model: &Model, r: &TypeRef) -> bool {
        let owner = model.declaring(r);
        if std::ptr::eq(owner, model) {
            self.texts.contains(&r.name)
        } else {
            owner.analysis().texts.contains(&r.name)
        }
    }
}

/// The cell a model keeps its analysis in: empty until first asked, and empty again in a
/// clone (a cloned model may be changed, the mutation tests' are).
#[derive(Default)]
pub struct Analyzed(OnceLock<Analysis>);

impl Analyzed {
    /// The analysis, made on first use.
    pub fn get(&self, model: &Model) -> &Analysis {
        self.0.get_or_init(|| Analysis::of(model))
    }
}

impl Clone for Analyzed {
    fn clone(&self) -> Self {
        Analyzed::default()
    }
}

impl std::fmt::Debug for Analyzed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Analyzed(..)"
        } else {
            "Analyzed(not yet)"
        })
    }
}
