//! The three text files of the interleaving pipeline (Freytag 2023, §4.2):
//! accuracy-loss profiles (CSV), schedules and section grids, parsed from
//! arbitrary text. Each gives a typed error naming the file, or a value that
//! the crate's own writer turns back into the same value (every bit: the
//! writers print shortest round-trip decimals), never a panic, a huge
//! allocation or a hang.
//!
//! The first byte picks the file kind (its value mod 3) and how the rest of
//! the input makes the text (its top two bits): as the whole file; after a
//! valid first line (the thesis's columns, with or without the extra ones, a
//! count, or a `# sections=...` comment); or as edits to a valid file of that
//! kind (pairs `position, byte`: the byte overwrites the text there, a 0
//! truncates it). A 60 s run of the first two alone never produced a file
//! that parsed (no profile row, schedule entry or grid row is valid by
//! chance), so without the third the round trips went unchecked.
#![no_main]

use boundgate::kernels::interleave::profile::{EXTRA_COLUMNS, Profile, THESIS_COLUMNS};
use boundgate::kernels::interleave::schedule::Schedule;
use boundgate::kernels::interleave::sections::SectionGrid;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn header(kind: u8, extended: bool) -> String {
    match kind {
        0 if extended => format!("{},{}\n", THESIS_COLUMNS.join(","), EXTRA_COLUMNS.join(",")),
        0 => format!("{}\n", THESIS_COLUMNS.join(",")),
        1 => "12\n".to_owned(),
        _ => "# sections=3 iterations=12 max_loss=0.25\nid,x_start,x_end,y_start,y_end,x_center,y_center\n"
            .to_owned(),
    }
}

/// A valid file of each kind, for the edits to start from.
fn template(kind: u8) -> String {
    match kind {
        0 => {
            let columns = format!("{},{}", THESIS_COLUMNS.join(","), EXTRA_COLUMNS.join(","));
            format!(
                "{columns}\nhalf,0,0,10,0.5,0,0,0,0.001,1e-7,1e-15\n\
                 half,1,10,25,0.25,0.0625,0.0625,0.0625,0.001,1e-7,1e-15\n\
                 float,2,25,30,1.5,0.03125,0.03125,0.03125,0.001,1e-7,1e-15\n"
            )
        }
        1 => "12\n0 half\n5 float\n9 looperf\n".to_owned(),
        _ => SectionGrid::new(3, 12, 0.25)
            .expect("a valid grid")
            .to_csv(),
    }
}

/// `text` with each `(position, byte)` of `edits` applied in turn.
fn edited(mut text: Vec<u8>, edits: &[u8]) -> Option<String> {
    for pair in edits.chunks_exact(2) {
        if text.is_empty() {
            break;
        }
        let at = usize::from(pair[0]) * text.len() / 256;
        match pair[1] {
            0 => text.truncate(at),
            byte => text[at] = byte,
        }
    }
    String::from_utf8(text).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let kind = first % 3;
    let text = match first >> 6 {
        0 | 1 => std::str::from_utf8(rest).ok().map(str::to_owned),
        2 => std::str::from_utf8(rest)
            .ok()
            .map(|body| header(kind, first & 0x20 != 0) + body),
        _ => edited(template(kind).into_bytes(), rest),
    };
    let Some(text) = text else {
        return;
    };
    let path = Path::new("fuzz.txt");
    let named = |e: &dyn std::fmt::Display| assert!(e.to_string().starts_with("fuzz.txt"), "{e}");
    match kind {
        0 => match Profile::parse(&text, path) {
            // A parsed profile has the extra columns on every row or on
            // none (its header decides), so the writer keeps all of them.
            Ok(p) => assert_eq!(
                Profile::parse(&p.to_csv(), path).expect("a written profile parses"),
                p
            ),
            Err(e) => named(&e),
        },
        1 => match Schedule::parse(&text, path) {
            Ok(s) => assert_eq!(
                Schedule::parse(&s.to_text(), path).expect("a written schedule parses"),
                s
            ),
            Err(e) => named(&e),
        },
        _ => match SectionGrid::parse(&text, path) {
            Ok(g) => assert_eq!(
                SectionGrid::parse(&g.to_csv(), path).expect("a written grid parses"),
                g
            ),
            Err(e) => named(&e),
        },
    }
});
