//! The board as tkMOO-light's XMCP/1.1 chess board reads and writes it: its 64-character
//! board string, and the drag coordinates of its moves.

use shakmaty::{Chess, File, Position, Rank, Square};

/// The board in tkMOO-light's order: file by file from the h-file, rank 1 to 8 within each,
/// `.` for empty, upper case white: `index = (7 - file) * 8 + (rank - 1)`.
pub fn board64(pos: &Chess) -> String {
    let board = pos.board();
    let mut s = String::with_capacity(64);
    for file in (0..8).rev() {
        for rank in 0..8 {
            let sq = Square::from_coords(File::new(file), Rank::new(rank));
            s.push(board.piece_at(sq).map_or('.', |p| p.char()));
        }
    }
    s
}

/// tkMOO-light's drag coordinates (x = 1 is the h-file, y the rank) as a square name.
pub fn drag_square(x: u32, y: u32) -> Option<String> {
    if !(1..=8).contains(&x) || !(1..=8).contains(&y) {
        return None;
    }
    let file = char::from(b'h' - (x as u8 - 1));
    Some(format!("{file}{y}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_in_tkmoo_order() {
        assert_eq!(
            board64(&Chess::default()),
            "RP....prNP....pnBP....pbKP....pkQP....pqBP....pbNP....pnRP....pr"
        );
    }

    #[test]
    fn drag_coordinates_count_from_the_h_file() {
        assert_eq!(drag_square(4, 2).as_deref(), Some("e2"));
        assert_eq!(drag_square(1, 1).as_deref(), Some("h1"));
        assert_eq!(drag_square(8, 8).as_deref(), Some("a8"));
        assert_eq!(drag_square(0, 1), None);
        assert_eq!(drag_square(9, 1), None);
        // Every square, both ways: x is 8 minus the file index, y the rank.
        for x in 1..=8u32 {
            for y in 1..=8u32 {
                let sq = drag_square(x, y).unwrap();
                let file = sq.as_bytes()[0] - b'a';
                assert_eq!(u32::from(8 - file), x, "{sq}");
                assert_eq!(sq[1..].parse::<u32>().unwrap(), y, "{sq}");
                // And the board string puts that square where tkMOO-light reads it.
                let idx = (7 - usize::from(file)) * 8 + (y as usize - 1);
                assert_eq!(idx, (x as usize - 1) * 8 + (y as usize - 1));
            }
        }
    }
}
