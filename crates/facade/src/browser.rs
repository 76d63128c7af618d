//! Browsers launched on a headless desktop start on a fresh profile of their
//! own, with their first-run pages off: a test sees the page it opened, in
//! the one tab it opened, not a welcome tab, a privacy notice, a "make me
//! your default browser" bar or a "profile missing" dialog. A caller who
//! passes a profile switch of their own gets none of it.
//!
//! Firefox gets `--no-remote --profile DIR`, DIR holding a `user.js` that
//! turns off the first-run, welcome, what's-new and privacy-notice pages and
//! the default-browser check. Chromium gets `--user-data-dir=DIR
//! --no-first-run --no-default-browser-check --password-store=basic` (the
//! last so no keyring dialog asks for a password), and, run as root,
//! `--no-sandbox`, without which it refuses to start.

use std::path::Path;
use uidrive_core::{Error, Result};

/// The browsers launching prepares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Browser {
    /// Firefox and Firefox ESR.
    Firefox,
    /// Chromium and Google Chrome (not Electron apps: they keep their own data).
    Chromium,
}

/// The browser `program` starts, told by its file name.
pub fn of(program: &str) -> Option<Browser> {
    let name = Path::new(program).file_name()?.to_str()?;
    match name {
        "firefox" | "firefox-esr" | "firefox-bin" => Some(Browser::Firefox),
        "chromium" | "chromium-browser" | "chrome" | "google-chrome" | "google-chrome-stable" => {
            Some(Browser::Chromium)
        }
        _ => None,
    }
}

/// Firefox's preferences for a profile that opens on the page it is given.
const FIREFOX_PREFS: &[(&str, &str)] = &[
    // No "make Firefox your default browser" question or bar.
    ("browser.shell.checkDefaultBrowser", "false"),
    ("browser.shell.skipDefaultBrowserCheckOnFirstRun", "true"),
    // No welcome page, first-run page or what's-new page.
    ("browser.aboutwelcome.enabled", "false"),
    ("trailhead.firstrun.didSeeAboutWelcome", "true"),
    ("browser.startup.homepage_override.mstone", "\"ignore\""),
    ("browser.startup.firstrunSkipsHomepage", "true"),
    ("startup.homepage_welcome_url", "\"\""),
    ("startup.homepage_welcome_url.additional", "\"\""),
    ("startup.homepage_override_url", "\"\""),
    ("browser.startup.upgradeDialog.enabled", "false"),
    ("browser.uitour.enabled", "false"),
    // No privacy notice tab (the data-reporting policy's first run).
    ("datareporting.policy.dataSubmissionEnabled", "false"),
    (
        "datareporting.policy.dataSubmissionPolicyBypassNotification",
        "true",
    ),
    ("datareporting.policy.firstRunURL", "\"\""),
    ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
    // Nothing asks before a window closes or offers to restore a killed session.
    ("browser.tabs.warnOnClose", "false"),
    ("browser.sessionstore.resume_from_crash", "false"),
    ("browser.disableResetPrompt", "true"),
];

/// The Chromium switches for a fresh profile that opens on the page it is given.
const CHROMIUM_SWITCHES: &[&str] = &[
    "--no-first-run",
    "--no-default-browser-check",
    "--password-store=basic",
];

/// Whether the caller chose a profile: Firefox's `-P`, `--profile`,
/// `--ProfileManager` (one dash or two, any case), Chromium's `--user-data-dir`.
fn has_profile(browser: Browser, args: &[String]) -> bool {
    args.iter().any(|arg| match browser {
        Browser::Firefox => {
            let name = arg.trim_start_matches('-').to_ascii_lowercase();
            arg.starts_with('-')
                && (name == "p"
                    || name == "profile"
                    || name.starts_with("profile=")
                    || name == "profilemanager")
        }
        Browser::Chromium => arg == "--user-data-dir" || arg.starts_with("--user-data-dir="),
    })
}

/// `argv` as launched on a headless desktop: a browser's with its profile
/// switches, the profile made in `profile` (a fresh directory of the app's
/// own); any other program's as it is.
pub fn prepare(argv: &[String], profile: &Path) -> Result<Vec<String>> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(argv.to_vec());
    };
    let Some(browser) = of(program) else {
        return Ok(argv.to_vec());
    };
    let mut added: Vec<String> = Vec::new();
    if !has_profile(browser, args) {
        std::fs::create_dir_all(profile).map_err(|e| {
            Error::failed(format!(
                "could not make the browser's profile {}: {e}",
                profile.display()
            ))
        })?;
        match browser {
            Browser::Firefox => {
                let prefs: String = FIREFOX_PREFS
                    .iter()
                    .map(|(name, value)| format!("user_pref(\"{name}\", {value});\n"))
                    .collect();
                let user_js = profile.join("user.js");
                std::fs::write(&user_js, prefs).map_err(|e| {
                    Error::failed(format!("could not write {}: {e}", user_js.display()))
                })?;
                added.extend(["--no-remote".to_string(), "--profile".to_string()]);
                added.push(profile.display().to_string());
            }
            Browser::Chromium => {
                added.push(format!("--user-data-dir={}", profile.display()));
                added.extend(CHROMIUM_SWITCHES.iter().map(|s| s.to_string()));
            }
        }
    }
    // Chromium refuses to run as root with its sandbox (CI containers run as root).
    if browser == Browser::Chromium
        && unsafe { libc::geteuid() } == 0
        && !args.iter().any(|a| a == "--no-sandbox")
    {
        added.push("--no-sandbox".to_string());
    }
    // The switches go before the caller's arguments, so the pages they name stay last.
    Ok(std::iter::once(program.clone())
        .chain(added)
        .chain(args.iter().cloned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("uidrive-browser-{}-{name}", std::process::id()))
    }

    #[test]
    fn browsers_are_told_by_name() {
        assert_eq!(of("/usr/bin/firefox-esr"), Some(Browser::Firefox));
        assert_eq!(of("firefox"), Some(Browser::Firefox));
        assert_eq!(of("chromium"), Some(Browser::Chromium));
        assert_eq!(of("chromium-browser"), Some(Browser::Chromium));
        assert_eq!(of("google-chrome"), Some(Browser::Chromium));
        assert_eq!(of("gnome-calculator"), None);
        assert_eq!(
            of("electron"),
            None,
            "an Electron app keeps its own data dir"
        );
    }

    #[test]
    fn firefox_gets_a_profile_with_first_run_off() {
        let dir = temp("firefox");
        let argv = prepare(&strings(&["firefox-esr", "file:///tmp/a.html"]), &dir).unwrap();
        let profile = dir.display().to_string();
        assert_eq!(
            argv,
            strings(&[
                "firefox-esr",
                "--no-remote",
                "--profile",
                &profile,
                "file:///tmp/a.html"
            ])
        );
        let user_js = std::fs::read_to_string(dir.join("user.js")).unwrap();
        assert!(user_js.contains("user_pref(\"browser.shell.checkDefaultBrowser\", false);\n"));
        assert!(user_js.contains("user_pref(\"datareporting.policy.firstRunURL\", \"\");\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chromium_gets_a_user_data_dir_and_no_first_run() {
        let dir = temp("chromium");
        let argv = prepare(&strings(&["chromium", "http://127.0.0.1:1/"]), &dir).unwrap();
        assert_eq!(argv[1], format!("--user-data-dir={}", dir.display()));
        assert!(argv.contains(&"--no-first-run".to_string()));
        assert!(argv.contains(&"--no-default-browser-check".to_string()));
        assert_eq!(argv.last().unwrap(), "http://127.0.0.1:1/");
        assert_eq!(
            argv.contains(&"--no-sandbox".to_string()),
            unsafe { libc::geteuid() } == 0
        );
        assert!(dir.is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_profile_of_the_callers_own_is_left_alone() {
        let dir = temp("own");
        for argv in [
            strings(&["firefox", "-P", "work"]),
            strings(&["firefox-esr", "--profile", "/tmp/p"]),
            strings(&["firefox", "-ProfileManager"]),
            strings(&["chromium", "--user-data-dir=/tmp/c", "--no-sandbox"]),
            strings(&["gnome-calculator", "--profile"]),
        ] {
            assert_eq!(prepare(&argv, &dir).unwrap(), argv);
        }
        assert!(!dir.exists(), "no profile made");
        // A page named like a switch is no profile switch.
        assert!(!has_profile(
            Browser::Firefox,
            &strings(&["file:///tmp/profile.html"])
        ));
    }
}
