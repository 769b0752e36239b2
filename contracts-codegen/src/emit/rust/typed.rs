//! emit::rust's typed frames (`wire::typed`): `NameTyped<'a, E>` beside a struct with a
//! `#[table]` field, whose payload is read by the key field's name in the frame's own pass, and
//! beside an untagged union whose last variant is one.

use super::decode::lets_else_with;
use super::docs::docs_attrs;
use super::envelope::{FlatField, FlatView, rest_loop};
use super::scan::{scan_arm, scan_finish_of};
use super::{At, Emitter, Store};
use crate::model::{Struct, TableKind, TypeDef, TypeRef};
use crate::names::rust_type_name;
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// A view's typed form, `NameTyped<'a, E>`, when one of its `unknown` fields is marked
    /// `#[table = "requests[type]"]`: that field holds the table's by-name enum, read by the
    /// key field's value in the frame's own pass when the key comes first (`wire::typed`).
    /// Empty otherwise. Every other field is as in the flat view `flat`.
    pub(super) fn struct_typed(&self, at: At<'_>, flat: &FlatView<'_>) -> TokenStream {
        let FlatView {
            def, s, name, view, ..
        } = flat;
        let Some(&table) = self.model.analysis().frames.get(&def.name) else {
            return TokenStream::new();
        };
        let (t, k) = (table.field, table.key);
        let rt = &self.rt;
        let typed = format_ident!("{}", rust_type_name(&format!("{}Typed", def.name)));
        let entry = self.table_entry(table.table, at);
        let table_name = match table.table {
            TableKind::Requests => "request",
            TableKind::Events => "event",
        };
        let field = &s.fields[t];
        let key = &s.fields[k];
        let doc = format!(
            " [`{name}`] with its `{}` read by its `{}` through the {table_name} table (`E`, \
             this protocol's by default, an app's for an extended protocol), in the frame's own \
             pass when `{}` comes first: see `wire::typed`. Parsed by `from_str_typed`, which \
             gives the verdict of [`{view}`] and the table's `parse`.",
            field.name, key.name, key.name
        );
        let field_ident = rust_ident(&rust_field(&field.name));
        let key_ident = rust_ident(&rust_field(&key.name));
        let fdocs = docs_attrs(&field.docs);
        let fields = &flat.fields;
        let slots: Vec<Ident> = fields.iter().map(|f| f.slot.clone()).collect();
        let (slot, key_slot) = (&fields[t].slot, &fields[k].slot);
        let others = || fields.iter().filter(|f| f.f.name != field.name);
        // The payload's member holds the entry; every other member is the view's.
        let mut members: Vec<TokenStream> = fields
            .iter()
            .filter_map(|f| {
                if f.f.name == field.name {
                    Some(quote!(#fdocs pub #field_ident: E,))
                } else {
                    self.view_member_as(f, at, f.owned())
                }
            })
            .collect();
        // An open frame holds its rest owned, as its view does; its loop reads every other key
        // into it (with its issues, which leave the frame to the two stages) where a closed
        // frame's strict loop leaves the frame to them at once.
        let rest = self.rest(s, at);
        if let Some(r) = &rest {
            let vty = &r.ty;
            members.push(quote! {
                /// Every other key of the object, with its value, in the order read, as the
                /// owned struct's `extra` (held owned).
                pub extra: #rt::Rest<#vty>,
            });
        }
        let index = quote!(<Self as #rt::ObjectRef<'de>>::index);
        let (rest_let, next, rest_finish, rest_build) = match &rest {
            Some(_) => {
                let [rest_let, next, finish, build] =
                    rest_loop(rt, rest.as_ref(), &index, &quote!(()));
                (rest_let, next, finish, build)
            }
            None => (
                TokenStream::new(),
                quote!(o.next_key_strict(map, #index)?),
                TokenStream::new(),
                TokenStream::new(),
            ),
        };
        let from_view_rest = rest.as_ref().map(|_| quote!(extra: view.extra,));
        let arms = fields.iter().map(|f| {
            if f.f.name == field.name {
                let i = Lit::usize_unsuffixed(t);
                quote!(#i => o.entry_into(map, #i, &#key_slot, &mut #slot),)
            } else {
                f.arm()
            }
        });
        // An optional payload that is absent is read as `{}` by the table.
        let read_entry = if field.optional {
            quote!(entry_or_empty)
        } else {
            quote!(entry)
        };
        let finish = others()
            .map(FlatField::finish)
            .chain([quote!(let #slot = o.#read_entry(#slot, &#key_slot);)]);
        let idents: Vec<&Ident> = others().filter(|f| f.kept()).map(|f| &f.ident).collect();
        let lets = fields.iter().map(|f| {
            let slot = &f.slot;
            if f.f.name == field.name {
                quote!(let mut #slot = #rt::EntrySlot::new();)
            } else {
                quote!(let mut #slot = ::core::option::Option::None;)
            }
        });
        let lets_else_unit = lets_else_with(
            &slots,
            fields.iter().map(FlatField::kept),
            &quote!(::core::result::Result::Ok(())),
        );
        // The fast reader: the payload read by the name already read, else left to the loop
        // above (`wire::scan`).
        let mut scan_arms = Vec::new();
        let mut scan_finish = Vec::new();
        let mut scan_build = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let (slot, ident) = (&f.slot, &f.ident);
            if i == t {
                scan_arms.push(scan_arm(
                    i,
                    slot,
                    quote!({
                        let name = #key_slot.as_deref()?;
                        #rt::scan_entry::<E>(name, r)
                    }),
                ));
                if field.optional {
                    // Absent, the payload is `{}` read by the name.
                    scan_finish.push(quote! {
                        let #slot = match #slot {
                            ::core::option::Option::Some(v) => v,
                            ::core::option::Option::None => {
                                #rt::scan_empty_entry::<E>(#key_slot.as_deref()?)?
                            }
                        };
                    });
                    scan_build.push(quote!(#ident: #slot,));
                } else {
                    scan_build.push(quote!(#ident: #slot?,));
                }
            } else {
                scan_arms.push(scan_arm(i, slot, f.scan()));
                let (check, value) = scan_finish_of(f.store, slot, TokenStream::new);
                scan_finish.push(check);
                if let Some(value) = value {
                    scan_build.push(quote!(#ident: #value,));
                }
            }
        }
        // An open frame's fast reader is never sure, as the owned struct's.
        let scan_body = if rest.is_some() {
            quote!(let _ = r; ::core::option::Option::None)
        } else {
            quote! {
                let mut next = 0;
                #(let mut #slots = ::core::option::Option::None;)*
                let mut keys = r.object()?;
                while let ::core::option::Option::Some(k) = r.field(&mut keys, KEYS, &mut next)? {
                    match k {
                        #(#scan_arms)*
                        _ => return ::core::option::Option::None,
                    }
                }
                #(#scan_finish)*
                ::core::option::Option::Some(Self { #(#scan_build)* })
            }
        };
        let parts = if field.optional {
            quote!((&*view.#key_ident, view.#field_ident.as_deref().unwrap_or(#rt::empty_object())))
        } else {
            quote!((&*view.#key_ident, &*view.#field_ident))
        };
        let build = fields.iter().filter(|f| f.kept()).map(|f| {
            let (ident, slot) = (&f.ident, &f.slot);
            quote!(#ident: #slot,)
        });
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub struct #typed<'a, E = #entry> {
                #(#members)*
            }

            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de, E: #rt::ByName<'de>> #rt::ObjectRef<'de> for #typed<'de, E> {
                const FIELDS: &'static [&'static str] = <#name as #rt::Object>::FIELDS;
                fn index(key: &str) -> ::core::option::Option<usize> {
                    <#name as #rt::Object>::index(key)
                }
                fn visit(
                    o: &mut #rt::ObjectCx<'_>,
                    map: &mut dyn #rt::SrcMap<'de>,
                ) -> #rt::Read<::core::option::Option<Self>> {
                    let mut out = ::core::option::Option::None;
                    Self::visit_into(o, map, &mut out)?;
                    ::core::result::Result::Ok(out)
                }
                fn visit_into(
                    o: &mut #rt::ObjectCx<'_>,
                    map: &mut dyn #rt::SrcMap<'de>,
                    out: &mut ::core::option::Option<Self>,
                ) -> #rt::Read<()> {
                    #(#lets)*
                    #rest_let
                    while let ::core::option::Option::Some(i) = #next {
                        match i {
                            #(#arms)*
                            _ => ::core::result::Result::Ok(()),
                        }?;
                    }
                    #(#finish)*
                    #lets_else_unit
                    #rest_finish
                    // Built in the caller's slot: the frame is not moved up through a result.
                    *out = ::core::option::Option::Some(Self { #(#build)* #rest_build });
                    ::core::result::Result::Ok(())
                }
            }

            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de, E: #rt::ByName<'de>> #rt::ObjectTyped<'de> for #typed<'de, E> {
                type View = #view<'de>;
                type Entry = E;
                #[inline]
                fn scan(r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #scan_body
                }
                fn parts(view: &Self::View) -> (&str, &#rt::RawValue) {
                    #parts
                }
                fn from_view(view: Self::View, entry: E) -> Self {
                    Self { #(#idents: view.#idents,)* #from_view_rest #field_ident: entry }
                }
            }
        }
    }

    /// The table's by-name enum a `#[table]` field defaults to, from `at`.
    fn table_entry(&self, table: TableKind, at: At<'_>) -> TokenStream {
        let up = match at {
            At::Root => quote!(),
            At::Module(_) => quote!(super::),
        };
        match table {
            TableKind::Requests => quote!(#up RequestPayload),
            TableKind::Events => quote!(#up EventPayload),
        }
    }

    /// An untagged union's typed form, `NameTyped<'a, E>` (`wire::UnionTyped`), when its last
    /// variant is a struct with a typed form and every earlier variant needs a literal key that
    /// struct does not have: an object holding only the typed struct's keys is then that
    /// variant, so its strict one-pass read answers for the union. Each other variant is as in
    /// the view. Empty otherwise.
    pub(super) fn untagged_typed(
        &self,
        name: &Ident,
        view: &Ident,
        parts: &[(&Ident, TokenStream, Option<TokenStream>)],
        structs: &[(&TypeRef, &TypeDef, &Struct)],
        at: At<'_>,
        grows: &TokenStream,
    ) -> TokenStream {
        let Some(((r, vdef, vs), earlier)) = structs.split_last() else {
            return TokenStream::new();
        };
        let many = || self.variants_typed(name, view, parts, structs, at, grows);
        let Some(table) = self.model.declaring(r).analysis().frames.get(&vdef.name) else {
            return many();
        };
        // An open frame's one pass would keep an earlier variant's literal key in its rest.
        if !self.has_flat_view(vdef) || vs.rest.is_some() {
            return many();
        }
        let needs_other_key = |s: &Struct| {
            s.fields.iter().any(|f| {
                matches!(self.store(f), Store::Literal)
                    && !vs.fields.iter().any(|g| g.name == f.name)
            })
        };
        if !earlier.iter().all(|(_, _, s)| needs_other_key(s)) {
            return many();
        }
        let rt = &self.rt;
        let typed_name = format_ident!("{}", rust_type_name(&format!("{name}Typed")));
        let typed_struct = self.type_path_as(self.model, r, at, &format!("{}Typed", r.name));
        let struct_view = self.view_path(self.model, r, at);
        let entry = self.table_entry(table.table, at);
        let (last_id, _, _) = &parts[parts.len() - 1];
        let last_doc = format!(" [`{name}::{last_id}`] with its payload read by name.");
        let mut members = Vec::new();
        let mut split = Vec::new();
        for (id, path, vpath) in &parts[..parts.len() - 1] {
            let vdoc = format!(" [`{name}::{id}`], as it was read.");
            match vpath {
                Some(vp) => members.push(quote!(#[doc = #vdoc] #id(#vp<'a>),)),
                None => members.push(quote!(#[doc = #vdoc] #id(#path),)),
            }
            split.push(quote!(#view::#id(v) => ::core::result::Result::Ok(Self::#id(v)),));
        }
        let doc = format!(
            " [`{name}`] with its `{last_id}` variant's payload read by name: each other variant \
             as in [`{view}`], `{last_id}` its typed form. Parsed by `from_str_union_typed`, \
             which gives the verdict of [`{view}`] and the table's `parse`."
        );
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #grows
            #[allow(deprecated)]
            pub enum #typed_name<'a, E = #entry> {
                #(#members)*
                #[doc = #last_doc]
                #last_id(#typed_struct<'a, E>),
            }

            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de, E: #rt::ByName<'de>> #rt::UnionTyped<'de> for #typed_name<'de, E> {
                type View = #view<'de>;
                type Typed = #typed_struct<'de, E>;
                fn typed(t: Self::Typed) -> Self {
                    Self::#last_id(t)
                }
                fn split(
                    view: Self::View,
                ) -> ::core::result::Result<Self, #struct_view<'de>> {
                    match view {
                        #(#split)*
                        #view::#last_id(v) => ::core::result::Result::Err(v),
                    }
                }
                fn join(view: #struct_view<'de>) -> Self::View {
                    #view::#last_id(view)
                }
            }
        }
    }

    /// An untagged union's typed form when its typed frames are not (only) its last variant,
    /// `NameTyped<'a, R, E>` (`wire::VariantsTyped`, JSON-RPC's `JSONRPCMessage`): each typed
    /// frame its typed form (`R` the request table's by-name enum, `E` the event table's, each
    /// there when a variant reads through it), every other variant as in the view. A typed
    /// variant is read in one pass only when every earlier variant requires a key it does not
    /// have (its strict one-pass read then answers only where the union would pick it). Empty
    /// when no variant is a typed frame.
    fn variants_typed(
        &self,
        name: &Ident,
        view: &Ident,
        parts: &[(&Ident, TokenStream, Option<TokenStream>)],
        structs: &[(&TypeRef, &TypeDef, &Struct)],
        at: At<'_>,
        grows: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        // Each variant's table, when it is a typed frame with a flat view.
        let tables: Vec<Option<TableKind>> = structs
            .iter()
            .map(|(r, vdef, _)| {
                let frame = self.model.declaring(r).analysis().frames.get(&vdef.name)?;
                self.has_flat_view(vdef).then_some(frame.table)
            })
            .collect();
        if tables.iter().all(Option::is_none) {
            return TokenStream::new();
        }
        let param = |t: TableKind| match t {
            TableKind::Requests => format_ident!("R"),
            TableKind::Events => format_ident!("E"),
        };
        let mut used: Vec<TableKind> = Vec::new();
        for t in tables.iter().flatten() {
            if !used.contains(t) {
                used.push(*t);
            }
        }
        used.sort_by_key(|t| matches!(t, TableKind::Events));
        let params: Vec<Ident> = used.iter().map(|t| param(*t)).collect();
        let defaults: Vec<TokenStream> = used.iter().map(|t| self.table_entry(*t, at)).collect();
        let typed_name = format_ident!("{}", rust_type_name(&format!("{name}Typed")));
        let mut members = Vec::new();
        let mut scans = Vec::new();
        let mut reads = Vec::new();
        let mut arms = Vec::new();
        let mut typed_ids = Vec::new();
        for (i, ((id, path, vpath), (r, _, vs))) in parts.iter().zip(structs).enumerate() {
            let Some(table) = tables[i] else {
                let vdoc = format!(" [`{name}::{id}`], as it was read.");
                match vpath {
                    Some(vp) => members.push(quote!(#[doc = #vdoc] #id(#vp<'a>),)),
                    None => members.push(quote!(#[doc = #vdoc] #id(#path),)),
                }
                arms.push(quote!(#view::#id(v) => ::core::result::Result::Ok(Self::#id(v)),));
                continue;
            };
            typed_ids.push(format!("`{id}`"));
            let p = param(table);
            let typed_struct = self.type_path_as(self.model, r, at, &format!("{}Typed", r.name));
            let vdoc = format!(" [`{name}::{id}`] with its payload read by name.");
            members.push(quote!(#[doc = #vdoc] #id(#typed_struct<'a, #p>),));
            arms.push(quote! {
                #view::#id(v) => match #rt::typed_from_view::<#typed_struct<'de, #p>>(v) {
                    ::core::result::Result::Ok(t) => ::core::result::Result::Ok(Self::#id(t)),
                    ::core::result::Result::Err((v, e)) => ::core::result::Result::Err((#view::#id(v), e)),
                },
            });
            // Every earlier variant requires a key this one does not have: an object of this
            // one's keys alone is none of them. An open one keeps any key in its rest, so its
            // value answers only when its rest holds none of those keys (one per earlier
            // variant, as TypeScript's guard checks the input), and its fast reader, never
            // sure, is not tried.
            let required = structs[..i].iter().map(|(_, _, s)| {
                s.fields
                    .iter()
                    .find(|f| !f.optional && !vs.fields.iter().any(|g| g.name == f.name))
                    .map(|f| f.name.as_str())
            });
            let guard: Option<Vec<&str>> = required.collect();
            if let Some(guard) = &guard
                && vs.rest.is_some()
            {
                let mut keys: Vec<&str> = Vec::new();
                for &k in guard {
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
                let absent = keys.iter().map(|k| quote!(!t.extra.contains_key(#k)));
                let filter = (!keys.is_empty()).then(|| quote!(.filter(|t| #(#absent)&&*)));
                reads.push(quote! {
                    if let ::core::option::Option::Some(t) = #rt::read_typed_once::<#typed_struct<'de, #p>>(json)#filter {
                        return ::core::option::Option::Some(Self::#id(t));
                    }
                });
            } else if guard.is_some() {
                scans.push(quote! {
                    if let ::core::option::Option::Some(t) = #rt::scan_typed_once::<#typed_struct<'de, #p>>(json) {
                        return ::core::option::Option::Some(Self::#id(t));
                    }
                });
                reads.push(quote! {
                    if let ::core::option::Option::Some(t) = #rt::read_typed_once::<#typed_struct<'de, #p>>(json) {
                        return ::core::option::Option::Some(Self::#id(t));
                    }
                });
            }
        }
        let doc = format!(
            " [`{name}`] with the payload of its typed frames ({}) read by name: each as its \
             typed form, every other variant as in [`{view}`]. Parsed by \
             `wire::from_str_variants_typed`, which gives the verdict of [`{view}`] and, for a \
             typed frame, the table's `parse`.",
            typed_ids.join(", ")
        );
        let json = if scans.is_empty() {
            quote!(_json)
        } else {
            quote!(json)
        };
        let read_json = if reads.is_empty() {
            quote!(_json)
        } else {
            quote!(json)
        };
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #grows
            #[allow(deprecated)]
            pub enum #typed_name<'a, #(#params = #defaults),*> {
                #(#members)*
            }

            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de, #(#params: #rt::ByName<'de>),*> #rt::VariantsTyped<'de> for #typed_name<'de, #(#params),*> {
                type View = #view<'de>;
                #[inline]
                fn scan_once(#json: &'de str) -> ::core::option::Option<Self> {
                    #(#scans)*
                    ::core::option::Option::None
                }
                fn read_once(#read_json: &'de str) -> ::core::option::Option<Self> {
                    #(#reads)*
                    ::core::option::Option::None
                }
                fn from_view(
                    view: Self::View,
                ) -> ::core::result::Result<Self, (Self::View, #rt::TableError)> {
                    match view {
                        #(#arms)*
                    }
                }
            }
        }
    }
}
