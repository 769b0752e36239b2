//! analysis: what the emitters, the corpus and the differ read off a checked model, computed
//! once per model ([`Checked`]) instead of re-derived by each of them.
//!
//! | question                                  | answer                  | read by                 |
//! |-------------------------------------------|-------------------------|-------------------------|
//! | which way does a type travel?             | [`direction`]           | compat, growth          |
//! | which enums and unions may grow?          | [`Growth`]              | emit::rust, compat      |
//! | which types hold themselves, and where?   | [`recursion`]           | emit::rust, emit::typescript, check |
//! | which structs are typed frames?           | [`frames`]              | every emitter           |
//! | which untagged variants are picked how?   | [`picks`]               | emit::typescript        |
//! | which types hold text (have a view)?      | [`text`]                | emit::rust's views      |
//! | does one type accept all another does?    | [`kinds`]               | compat, check           |
//! | which structs have a flat view?           | [`text::flats`]         | emit::rust's envelopes  |
//!
//! Every answer is about the model's own types, keyed by name; a base's are its own
//! analysis's (`checked.base(p).analysis()`). Only a checked model is analysed: `lower` and
//! `check` never ask, except `check` for a recursion path in a message and for
//! [`kinds::covers`] (a pure function of the model, as are the scalar relations the differ
//! reads).

pub mod direction;
pub mod frames;
pub mod growth;
pub mod kinds;
pub mod picks;
pub mod recursion;
pub mod text;

use crate::model::{Model, TypeDef, TypeRef};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use direction::Directions;
pub use frames::TypedFrame;
pub use growth::Growth;
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
}

/// A checked model with its analysis, and its bases' likewise: what every emitter, the corpus
/// and the differ take. Made once per model ([`Checked::new`]) after `load` has checked it; it
/// reads as its [`Model`] (`Deref`), and [`Checked::declaring`] and [`Checked::base`] answer
/// with a base's own `Checked`, so a base's type is read with its own analysis.
#[derive(Debug)]
pub struct Checked {
    model: Arc<Model>,
    analysis: Analysis,
    bases: Vec<Checked>,
}

impl Checked {
    /// Analyses a checked model and its bases.
    pub fn new(model: impl Into<Arc<Model>>) -> Checked {
        let model = model.into();
        Checked {
            analysis: Analysis::of(&model),
            bases: model
                .bases
                .iter()
                .map(|b| Checked::new(b.clone()))
                .collect(),
            model,
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The model, shared.
    pub fn model_arc(&self) -> &Arc<Model> {
        &self.model
    }

    /// What the emitters, the corpus and the differ read off the model.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The bases this protocol builds on directly, in the order given.
    pub fn each_base(&self) -> impl Iterator<Item = &Checked> {
        self.bases.iter()
    }

    /// The base protocol called `name`, searched depth-first through the bases.
    pub fn base(&self, name: &str) -> Option<&Checked> {
        for b in &self.bases {
            if b.model.name == name {
                return Some(b);
            }
            if let Some(m) = b.base(name) {
                return Some(m);
            }
        }
        None
    }

    /// The checked model that declares the type `r` names (this one or a base).
    pub fn declaring(&self, r: &TypeRef) -> &Checked {
        match r.protocol.as_deref() {
            Some(p) if p != self.model.name => self.base(p).unwrap_or(self),
            _ => self,
        }
    }

    /// The checked model called `name`: this one or a base.
    pub fn named(&self, name: &str) -> &Checked {
        if name == self.model.name {
            self
        } else {
            self.base(name).unwrap_or(self)
        }
    }

    /// Whether the type `r` names (written in this model) holds text: asked of the model that
    /// declares it.
    pub fn holds_text(&self, r: &TypeRef) -> bool {
        self.declaring(r).analysis.texts.contains(&r.name)
    }

    /// Whether `def`, a type of this model, may gain a value or a variant compatibly.
    pub fn may_grow(&self, def: &TypeDef) -> bool {
        self.analysis.growth.may_grow(self, def)
    }
}

impl std::ops::Deref for Checked {
    type Target = Model;

    fn deref(&self) -> &Model {
        &self.model
    }
}
