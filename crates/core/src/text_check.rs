//! Whether text landed: the one check every layer makes after it set or
//! typed text (core's locators after `fill` and `type`, the AT-SPI driver
//! after `setValue` and `insertText`), and how a message says what a field
//! reads. A password field shows one mask character per character, so it is
//! judged by its length.

/// Whether a field that reads `now` holds exactly `wanted`.
pub fn reads_as(now: &str, wanted: &str, password: bool) -> bool {
    if password {
        now.chars().count() == wanted.chars().count()
    } else {
        now == wanted
    }
}

/// Whether a field that read `before` and reads `now` took `typed`: its text
/// changed and holds it (a password field: grew by as many characters).
pub fn took_typing(before: &str, now: &str, typed: &str, password: bool) -> bool {
    if password {
        now.chars().count() == before.chars().count() + typed.chars().count()
    } else {
        now != before && now.contains(typed)
    }
}

/// What a field reads, for a message: `` `text` `` (clipped), or for a
/// password field how many characters it holds.
pub fn what_it_reads(now: &str, password: bool) -> String {
    if password {
        format!("{} characters", now.chars().count())
    } else {
        format!("`{}`", clip(now))
    }
}

/// Text for a message: at most 80 characters.
pub fn clip(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        let head: String = text.chars().take(77).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_judged_by_length() {
        assert!(reads_as("•••", "abc", true));
        assert!(!reads_as("••", "abc", true));
        assert!(!reads_as("•••", "abc", false));
        assert!(took_typing("•", "•••", "xy", true));
        assert!(took_typing("ab", "abc", "c", false));
        assert!(!took_typing("abc", "abc", "c", false));
        assert_eq!(what_it_reads("abc", true), "3 characters");
        assert_eq!(what_it_reads("abc", false), "`abc`");
    }

    #[test]
    fn long_text_is_clipped_in_messages() {
        assert_eq!(clip("short"), "short");
        assert_eq!(clip(&"x".repeat(100)).chars().count(), 80);
    }
}
