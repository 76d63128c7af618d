#!/usr/bin/env bash
# Installs what building and testing uidrive needs on a fresh Debian machine.
# Safe to run again: only packages that are missing are installed.
# The benchmarks' peers are installed by scripts/install-bench-deps.sh.
set -euo pipefail

# headless desktop: X server, window manager, session bus, accessibility bus and registry
DESKTOP=(xvfb openbox x11-utils dbus dbus-x11 at-spi2-core)
# the headless Wayland desktop (crates/wayland): sway on wlroots' headless backend, and Qt 5's
# and Qt 6's Wayland platform plugins (kcalc in crates/atspi/tests/wayland.rs; the compatibility
# suite's Qt apps with --backend wayland); grim, the witness's capture of the Wayland screen there;
# Xwayland on request (xwayland), and xhost to let root's apps reach a nobody-run Xwayland; wl-clipboard,
# the Wayland clipboard (wl-copy, wl-paste: crates/wayland/src/clipboard.rs)
WAYLAND=(sway qtwayland5 qt6-wayland grim xwayland x11-xserver-utils wl-clipboard)
# a person's Wayland session through the desktop portal (crates/wayland/src/portal.rs; its test
# rig, crates/atspi/tests/portal.rs, is GNOME's compositor headless): the portal and its GNOME
# backend, mutter, PipeWire and its session manager, and GStreamer's PipeWire source, which reads
# the screen stream's frames (gst-launch-1.0)
PORTAL=(xdg-desktop-portal xdg-desktop-portal-gnome mutter pipewire pipewire-bin wireplumber
  gstreamer1.0-pipewire gstreamer1.0-tools gstreamer1.0-plugins-base)
# real apps the end-to-end tests drive
TEST_APPS=(gtk-3-examples gtk-4-examples gnome-calculator zenity)
# the Python wheel's test venv and the MCP client's venv (scripts/venv.sh)
PYTHON=(python3-venv)
# C ABI harnesses
C_ABI=(gcc g++ pkg-config golang-go)
# fonts so apps render text in captures
FONTS=(fonts-dejavu-core)
# the compatibility suite (scripts/compat/run.sh): an app of each toolkit, and
# pyatspi, the peer whose walk it compares node counts with
COMPAT_APPS=(kcalc featherpad linguist-qt6 firefox-esr chromium libreoffice-writer libreoffice-calc
  libreoffice-gtk3 gnome-text-editor mousepad python3-pyatspi)
# its values step: what a capture shows in an element's box (PIL crops, tesseract reads);
# tesseract is also the OCR of visual targets (crates/visual: ocr=, snapshot --ocr)
COMPAT_VALUES=(python3-pil tesseract-ocr tesseract-ocr-eng)
# apps whose reads go stale, scale or embed (crates/atspi/tests/fresh_reads.rs, scaled.rs:
# GTK 4 for tests/apps/gtk4_check.py)
FRESH_READ_APPS=(gnome-system-monitor okular epiphany-browser gir1.2-gtk-4.0)

# apps whose handlers run modal dialogs in a nested loop (crates/atspi/tests/modal_dialogs.rs:
# a PyGObject and a wxPython app of tests/apps/, Inkscape, Audacity)
MODAL_APPS=(python3-gi gir1.2-gtk-3.0 python3-wxgtk4.0 inkscape audacity)
# GTK 2 and Qt 6 apps of the compatibility suite and the close tests: GIMP (a dialog, its
# session saved on a graceful close) and Qt Designer 6 (a tree view)
MORE_COMPAT_APPS=(gimp designer-qt6)

# Java and apps with no accessibility tree (crates/atspi/tests/java.rs, no_tree.rs): javac and
# jcmd for the Swing app of tests/apps, the JRE's X11 toolkit, Java's ATK bridge, Tk and xterm
JAVA_AND_NO_TREE=(default-jdk-headless default-jre libatk-wrapper-java libatk-wrapper-java-jni
  python3-tk xterm)

# apps that keep a state where accessibility does not show it (crates/cli/tests/truth.rs):
# Evince's popover check items (GTK 3; the test reads its window's action state with dbus-send,
# of dbus-bin) and Nautilus's grid view (GTK 4)
HIDDEN_STATE_APPS=(evince nautilus dbus-bin)

# the desktop's services (crates/*/tests/desktop_services.rs, tests/apps/tray_item.py):
# notify-send, and D-Bus from Debian's python3 for the test tray item
DESKTOP_SERVICES=(libnotify-bin python3-dbus python3-gi)

PKGS=("${DESKTOP[@]}" "${WAYLAND[@]}" "${PORTAL[@]}" "${DESKTOP_SERVICES[@]}" "${TEST_APPS[@]}" "${MODAL_APPS[@]}" "${JAVA_AND_NO_TREE[@]}" "${PYTHON[@]}" "${C_ABI[@]}" "${FONTS[@]}" "${COMPAT_APPS[@]}" "${COMPAT_VALUES[@]}" "${FRESH_READ_APPS[@]}" "${MORE_COMPAT_APPS[@]}" "${HIDDEN_STATE_APPS[@]}")

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
