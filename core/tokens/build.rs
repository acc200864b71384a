//! Writes the table the token counter loads: bpe-openai's o200k_base encoding without the two
//! automata that only its incremental encoders use.
//!
//! bpe-openai embeds the whole encoding, 32 MB of MessagePack, half of which are the "overlapping"
//! Aho-Corasick automata that its appendable and prependable encoders walk. Counting (`count`,
//! `count_till_limit`) walks the longest-match automaton and the pair tables only. Swapping those
//! two automata for the ones of a 256-token encoding keeps every count and halves the binary's
//! table and its decoding time at start-up (see BENCHMARKS.md). This crate's unit tests
//! compare the counts with bpe-openai's own table.

use std::path::PathBuf;

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use rmpv::Value;

/// `BytePairEncoding`'s fields, serialized as a MessagePack array in declaration order (bpe 0.2.3).
const FIELDS: usize = 10;
/// The longest-match automaton, which counting walks.
const LONGEST_SEARCHER: usize = 5;
/// The overlapping automata (forward and reversed), which counting never walks.
const OVERLAPPING_SEARCHERS: [usize; 2] = [6, 7];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let full = fields(&bpe_openai::o200k_base().bpe);
    // bpe-openai's own hash factor; the small encoding only lends its automata.
    let single_bytes = (0..=u8::MAX).map(|byte| vec![byte]);
    let small = fields(&BytePairEncoding::from_dictionary(single_bytes, Some(1)));
    let mut trimmed = full;
    for index in OVERLAPPING_SEARCHERS {
        trimmed[index] = small[index].clone();
    }
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &Value::Array(trimmed))
        .expect("writing MessagePack into memory cannot fail");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("o200k_counting.msgpack"), bytes)
        .expect("failed to write the token counter's table");
}

/// The encoding's fields as MessagePack values, after checking they have the layout this script
/// knows.
fn fields(encoding: &BytePairEncoding) -> Vec<Value> {
    let bytes = rmp_serde::to_vec(encoding).expect("a BytePairEncoding serializes");
    let value =
        rmpv::decode::read_value(&mut bytes.as_slice()).expect("rmp_serde wrote MessagePack");
    let Value::Array(fields) = value else {
        panic!(
            "bpe's BytePairEncoding is no longer a MessagePack array: update core/engine/build.rs"
        );
    };
    let automata = [
        LONGEST_SEARCHER,
        OVERLAPPING_SEARCHERS[0],
        OVERLAPPING_SEARCHERS[1],
    ];
    let layout_known = fields.len() == FIELDS
        && automata
            .iter()
            .all(|&index| matches!(fields[index], Value::Binary(_)));
    assert!(
        layout_known,
        "bpe's BytePairEncoding changed its fields: update core/engine/build.rs"
    );
    fields
}
