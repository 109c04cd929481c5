//! The documents agree with the code: each docs/methods/<key>.md holds, between its params markers, the table
//! that `cairn params <key>` generates from the method's Params struct.

use cairn::methods::param_docs::method_table;
use cairn::model::MethodKey;
use std::path::Path;

const BEGIN: &str = "<!-- params:begin -->";
const END: &str = "<!-- params:end -->";

#[test]
fn every_method_document_holds_its_generated_parameter_table() {
    let mut stale = Vec::new();
    for key in MethodKey::ALL {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/methods").join(format!("{key}.md"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
            panic!("{}: no `{BEGIN}` … `{END}` markers", path.display());
        };
        assert!(b < e, "{}: `{END}` comes before `{BEGIN}`", path.display());
        let inside = text[b + BEGIN.len()..e].trim();
        if inside != method_table(key).trim() {
            stale.push(format!(
                "docs/methods/{key}.md: the table between the params markers differs from the generated one; \
                 regenerate it with `cargo run --release -p cairn-cli -- params {key}` and paste the output between the markers"
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn the_defaults_the_tables_print_are_accepted_by_the_scene() {
    use cairn::method::params::Params;
    fn round_trip<P: Params + serde::Serialize + PartialEq + std::fmt::Debug>() {
        let table = toml::Table::try_from(P::default()).expect("defaults serialise");
        assert_eq!(P::from_table(&table).expect("serialised defaults read back"), P::default());
    }
    round_trip::<cairn::methods::lcp::LcpParams>();
    round_trip::<cairn::methods::impulse::ImpulseParams>();
    round_trip::<cairn::methods::volumetric::VolumetricParams>();
    round_trip::<cairn::methods::implicit::ImplicitParams>();
    round_trip::<cairn::methods::abd::AbdParams>();
}
