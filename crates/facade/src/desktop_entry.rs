//! Apps named by their `.desktop` id (`org.gnome.Calculator.desktop`), as
//! menus and launchers name them: the id is looked up in the XDG data
//! directories and its `Exec` line becomes the command line to launch.

use std::path::PathBuf;
use uidrive_core::{Error, Result};

/// Whether `app` names a desktop entry rather than a command line.
pub fn is_desktop_id(app: &str) -> bool {
    app.ends_with(".desktop") && !app.contains(char::is_whitespace)
}

/// The command line of the desktop entry `id` (`name.desktop`), its field
/// codes (`%U`, `%f`, ...) left out, as no files are opened.
pub fn argv(id: &str) -> Result<Vec<String>> {
    let path = find(id)?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::failed(format!("cannot read {}: {e}", path.display()))
            .with_suggestion("check the file's permissions")
    })?;
    let exec = exec_line(&text).ok_or_else(|| {
        Error::invalid_request(format!("{} has no Exec line", path.display()))
            .with_suggestion("give the app's command line instead of its desktop id")
    })?;
    let argv = split_exec(exec)?;
    if argv.is_empty() {
        return Err(
            Error::invalid_request(format!("{}'s Exec line is empty", path.display()))
                .with_suggestion("give the app's command line instead of its desktop id"),
        );
    }
    Ok(argv)
}

fn data_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    match std::env::var_os("XDG_DATA_HOME") {
        Some(home) if !home.is_empty() => dirs.push(PathBuf::from(home)),
        _ => {
            if let Some(home) = std::env::var_os("HOME") {
                dirs.push(PathBuf::from(home).join(".local/share"));
            }
        }
    }
    let system = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    dirs.extend(
        system
            .split(':')
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
    );
    dirs
}

fn find(id: &str) -> Result<PathBuf> {
    if id.contains('/') || id.starts_with('.') {
        return Err(Error::invalid_request(format!(
            "`{id}` is not a desktop id; an id is a file name such as org.gnome.Calculator.desktop"
        )));
    }
    let dirs = data_dirs();
    // The spec's ids may stand for subdirectories: `kde-kcalc.desktop` is kde/kcalc.desktop.
    let mut names = vec![id.to_string()];
    if id.contains('-') {
        names.push(id.replacen('-', "/", 1));
    }
    for dir in &dirs {
        for name in &names {
            let path = dir.join("applications").join(name);
            if path.is_file() {
                return Ok(path);
            }
        }
    }
    Err(Error::invalid_request(format!(
        "no desktop entry `{id}` in {}",
        dirs.iter()
            .map(|d| d.join("applications").display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .with_suggestion("list /usr/share/applications for the ids installed, or give a command line"))
}

/// The `Exec` value of the `[Desktop Entry]` group.
fn exec_line(text: &str) -> Option<&str> {
    let mut in_entry = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
        } else if in_entry {
            if let Some(value) = line.strip_prefix("Exec") {
                if let Some(value) = value.trim_start().strip_prefix('=') {
                    return Some(value.trim());
                }
            }
        }
    }
    None
}

/// Splits an Exec value into words (double quotes and backslash escapes, as
/// the Desktop Entry spec writes them) and drops the field codes.
fn split_exec(exec: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = exec.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err(Error::invalid_request(format!(
            "the Exec line `{exec}` has an unclosed quote"
        )));
    }
    if in_word {
        words.push(word);
    }
    Ok(words
        .into_iter()
        .filter(|w| !(w.len() == 2 && w.starts_with('%')))
        .map(|w| w.replace("%%", "%"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_lines_split_and_lose_their_field_codes() {
        let text = "[Desktop Action new]\nExec=wrong\n[Desktop Entry]\nName=Calc\nExec=\"/opt/my app/calc\" --mode basic %U\n";
        let exec = exec_line(text).unwrap();
        assert_eq!(
            split_exec(exec).unwrap(),
            vec!["/opt/my app/calc", "--mode", "basic"]
        );
        assert!(split_exec("\"open").is_err());
        assert!(is_desktop_id("org.gnome.Calculator.desktop"));
        assert!(!is_desktop_id("gnome-calculator --mode basic"));
    }
}
