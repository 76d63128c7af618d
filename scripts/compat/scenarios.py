"""The apps of the compatibility suite and what each scenario does.

APPS maps a name to (command line, scenario, launch timeout in ms). A scenario
gives the app's own steps (text, button, menu) as (step, function) pairs; each
function acts through the uidrive CLI and reads the effect back from the tree,
raising StepFailed when it is not there.
"""
import os
import subprocess

from compat import StepFailed

FORM = "file://{here}/form.html"


def labelled(role, label):
    return f'role={role}[name="{label}"]'


def has(app, role, label=None, contains=None):
    return lambda elements: app.find(role, label, contains, elements)


def states(element):
    return set(element.get("states") or [])


# --- Qt 5: kcalc -------------------------------------------------------------

def kcalc_display(app, elements):
    """The display: the first group whose label is a number."""
    for e in elements:
        label = (e.get("label") or "").replace(",", "")
        if e.get("role") == "group" and label.replace(".", "").replace("-", "").isdigit():
            return label
    return None


def kcalc(app):
    def text():
        app.cli("type", "6*7=")
        app.wait_for("display 42 after typing 6*7=", lambda els: kcalc_display(app, els) == "42")
        return "typed 6*7=, display reads 42"

    def button():
        for label in ["AC", "9", "+", "1", "="]:
            app.cli("press", labelled("button", label))
        app.wait_for("display 10 after 9 + 1 =", lambda els: kcalc_display(app, els) == "10")
        return "pressed AC 9 + 1 =, display reads 10"

    def menu():
        if [e for e in app.find("radio", "Hex") if "offscreen" not in states(e)]:
            raise StepFailed("the Hex button is shown before the menu is chosen")
        app.cli("menu", "Settings", "Numeral System Mode")
        app.wait_for("radio button Hex shown", lambda els: [
            e for e in app.find("radio", "Hex", elements=els) if "offscreen" not in states(e)])
        return "Settings > Numeral System Mode shows the Hex/Dec/Oct/Bin buttons"

    return [("text", text), ("button", button), ("menu", menu)]


# --- Qt 5: featherpad ----------------------------------------------------------------

def featherpad(app):
    def editor(els):
        return app.find("textField", elements=els)[0]  # the editor comes before the search bar's field

    def text():
        app.cli("type", "Hello compat", "--into", editor(app.elements())["ref"])
        app.wait_for("the editor reads Hello compat", lambda els: editor(els).get("value") == "Hello compat")
        return "typed into the editor, read it back"

    def button():
        before = tab_count(app, app.tree())
        app.cli("press", labelled("button", "New"))
        app.wait_for(f"{before + 1} tabs", lambda els: tab_count(app, els) == before + 1)
        return f"toolbar New: {before} -> {before + 1} tabs"

    def menu():
        def line_numbers(els):
            return app.find("menuItem", "Line Numbers", elements=els)

        if [e for e in line_numbers(app.tree()) if "checked" in states(e)]:
            raise StepFailed("Line Numbers is checked before it is chosen")
        app.cli("menu", "Options", "Line Numbers")
        app.wait_for("Line Numbers checked", lambda els: [e for e in line_numbers(els) if "checked" in states(e)])
        return "Options > Line Numbers: the item reads checked"

    return [("text", text), ("button", button), ("menu", menu)]


# --- Qt 6: Qt Linguist on a two-message translation file --------------------

def field_after(elements, role, label_text):
    """The first `role` element after the text element labelled `label_text` (Qt leaves fields unnamed)."""
    seen = False
    for e in elements:
        if e.get("role") == "text" and e.get("label") == label_text:
            seen = True
        elif seen and e.get("role") == role:
            return e
    raise StepFailed(f"no {role} after the text {label_text!r}")


def linguist(app):
    translation = "Translation to Deutsch (Deutschland)"

    def text():
        field = field_after(app.elements(), "textField", translation)
        app.cli("fill", field["ref"], "Bestellung senden")
        app.wait_for("the translation field reads the text", lambda els: (
            field_after(els, "textField", translation).get("value") == "Bestellung senden"))
        return "filled the translation, read it back"

    def button():
        app.cli("press", labelled("button", "Done and Next"))
        app.wait_for("context Order counts 1/2 done", has(app, "cell", "1/2"))
        app.wait_for("source text moves to the next message", lambda els: [
            e for e in app.find("textField", elements=els) if e.get("value") == "Gift wrap"])
        return "Done and Next: 1/2 done, next message shown"

    def menu():
        before = app.find("checkBox", "Accelerators")
        if not before or "checked" not in states(before[0]):
            raise StepFailed(f"expected the Accelerators check box checked first, found {before}")
        app.cli("menu", "Validation", "Accelerators")
        app.wait_for("Accelerators unchecked", lambda els: [
            e for e in app.find("checkBox", "Accelerators", elements=els) if "checked" not in states(e)])
        return "Validation > Accelerators unchecks the toolbar's Accelerators"

    return [("text", text), ("button", button), ("menu", menu)]


# --- browsers: the local form --------------------------------------------------

def form_steps(app, tabs_before):
    """text, button and menu on form.html; `menu` is the browser's own (given by the caller)."""
    def text():
        app.cli("fill", labelled("textField", "Name"), "Ada")
        app.wait_for("the Name field reads Ada", lambda els: [
            e for e in app.find("textField", "Name", elements=els) if e.get("value") == "Ada"])
        return "filled Name, read Ada back"

    def button():
        app.cli("check", labelled("checkBox", "Gift wrap"))
        app.cli("select", labelled("comboBox", "Size"), "Large")
        app.cli("press", labelled("button", "Send order"))
        app.wait_for("the page's result text", lambda els: [
            e for e in els if "Sent: Ada, Large, gift" in ((e.get("label") or "") + (e.get("value") or ""))])
        return "checked Gift wrap, selected Large, pressed Send order: page reads 'Sent: Ada, Large, gift'"

    return [("text", text), ("button", button)]


def tab_count(app, elements):
    return len([e for e in elements if e.get("role") == "tab" and "offscreen" not in states(e)])


def firefox(app):
    def menu():
        before = tab_count(app, app.tree())
        app.cli("key", "F10")  # Firefox hides its menu bar; F10 shows it, as the menu error suggests
        app.cli("menu", "File", "New Tab")
        app.wait_for(f"{before + 1} tabs", lambda els: tab_count(app, els) == before + 1)
        return f"F10, File > New Tab: {before} -> {before + 1} tabs"

    return form_steps(app, None) + [("menu", menu)]


def chromium(app):
    def menu():
        before = tab_count(app, app.tree())
        windows = {w["id"] for w in app.windows()}
        app.cli("press", labelled("button", "Chromium"))
        # The menu is a window of its own; its items carry their shortcut in the name.
        popup = app.wait_until("the app menu's window", lambda: [
            w for w in app.windows() if w["id"] not in windows])[0]
        app.elements(popup["id"])  # the session's window: where the next action looks
        app.cli("press", 'role=menuItem[name="New tab Ctrl+T"]')
        app.elements(1)  # back to the browser's window; the menu's is gone
        app.wait_for(f"{before + 1} tabs", lambda els: tab_count(app, els) == before + 1, window=1)
        return f"app menu > New tab: {before} -> {before + 1} tabs"

    return form_steps(app, None) + [("menu", menu)]


# --- LibreOffice (VCL gtk3) -------------------------------------------------------

def office_argv(program, work_name):
    # A profile of its own: a LibreOffice already running with the same profile
    # would take the document and this process would exit.
    return [program, "--norestore", f"-env:UserInstallation=file://{{work}}/{work_name}"]


def no_office_tips(work_name):
    """A profile that does not open Tip of the Day over the document."""
    def prepare(work):
        user = os.path.join(work, work_name, "user")
        os.makedirs(user, exist_ok=True)
        with open(os.path.join(user, "registrymodifications.xcu"), "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
                    'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
                    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
                    '<item oor:path="/org.openoffice.Office.Common/Misc">'
                    '<prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>\n'
                    '</oor:items>\n')
    return prepare


def paragraph(els):
    """The first paragraph of the document: the first text inside the group named `... Document`."""
    # Snapshot elements name their parent by ref, the protocol's nodes by id.
    documents = {e.get("ref", e["id"]) for e in els if (e.get("label") or "").endswith("LibreOffice Document")}
    for e in els:
        if e.get("role") == "text" and e.get("parent") in documents:
            return e
    raise StepFailed("no paragraph in the document")


def writer(app):
    def text():
        app.cli("type", "Hello compat", "--into", paragraph(app.elements())["ref"])
        app.wait_for("the paragraph reads Hello compat", lambda els: paragraph(els).get("value") == "Hello compat")
        return "typed into the document, read the paragraph back"

    def button():
        app.cli("key", "ctrl+a")
        app.cli("press", labelled("toggleButton", "Bold"))
        app.wait_for("the Bold toggle checked", lambda els: [
            e for e in app.find("toggleButton", "Bold", elements=els) if "checked" in states(e)])
        return "selected all, pressed Bold: the toggle reads checked"

    def menu():
        app.cli("menu", "Format", "Text", "UPPERCASE")
        app.wait_for("the paragraph reads HELLO COMPAT", lambda els: paragraph(els).get("value") == "HELLO COMPAT")
        return "Format > Text > UPPERCASE: the paragraph reads HELLO COMPAT"

    return [("text", text), ("button", button), ("menu", menu)]


def calc_cell(els, name):
    cells = [e for e in els if e.get("role") == "cell" and e.get("label") == name]
    return cells[0] if cells else None


def name_box(els):
    """The formula bar's Name Box: a text field holding a cell address."""
    return [e for e in els if e.get("role") == "textField"
            and (e.get("value") or "")[:1].isalpha() and (e.get("value") or "")[1:].isdigit()]


def calc(app):
    def button():
        # Calc opens with its Tip of the Day dialog in front.
        tip = app.wait_until("the Tip of the Day dialog", lambda: [
            w for w in app.windows() if w["title"].startswith("Tip of the Day")])[0]
        app.elements(tip["id"])  # the session's window: where the next action looks
        app.cli("press", labelled("button", "OK"))
        app.wait_until("the dialog gone, one window left", lambda: len(app.windows()) == 1)
        app.elements(1)  # back to the sheet's window
        return "pressed OK on Tip of the Day: the dialog is gone"

    def text():
        a1 = app.wait_for("cell A1 focused", lambda els: (
            calc_cell(els, "A1") if "focused" in states(calc_cell(els, "A1") or {}) else None), window=1)
        app.cli("type", "=6*7")
        app.cli("key", "Enter")
        app.wait_for("cell A1 reads 42", lambda els: (calc_cell(els, "A1") or {}).get("value") == "42",
                     window=1)
        return f"typed =6*7 Enter into {a1['label']}: it reads 42"

    def menu():
        if not name_box(app.tree(1)):
            raise StepFailed("no Name Box before hiding the formula bar")
        # Calc reads its window in seconds when the machine is busy (both of
        # the test command's lanes run LibreOffice): its menus get 30 s.
        app.cli("menu", "View", "Formula Bar", "--action-timeout", "30000")
        app.wait_for("the Name Box gone with the formula bar", lambda els: not name_box(els), window=1)
        return "View > Formula Bar hides the formula bar (its Name Box leaves the tree)"

    return [("button", button), ("text", text), ("menu", menu)]


# --- GTK 4 / libadwaita: gnome-text-editor ------------------------------------------

def text_editor(app):
    def text():
        app.cli("type", "Hello compat", "--into", labelled("textField", "EditorSourceView"))
        app.wait_for("the editor reads Hello compat", lambda els: [
            e for e in app.find("textField", "EditorSourceView", elements=els) if e.get("value") == "Hello compat"])
        return "typed into the editor, read it back"

    def button():
        if app.find("group", "New Document"):
            raise StepFailed("a tab named New Document is there before the button is pressed")
        app.cli("press", labelled("button", "New tab (Ctrl+T)"))
        app.wait_for("a tab named New Document", has(app, "group", "New Document"))
        return "New tab: a second tab, New Document, beside Hello compat"

    def line_numbers(els):
        return [e for e in els if e.get("role") == "menuItemCheckBox" and e.get("label") == "Line Numbers"]

    def dark_style(els):
        return [e for e in els if e.get("role") == "checkBox" and e.get("label") == "Dark style"]

    def menu():
        # libadwaita has no menu bar: its menus are popovers of header bar
        # buttons. The items are clicked with the real pointer at their
        # bounds' centre, so the step passes only where GTK 4's popover
        # contents are placed where they show.
        view = labelled("button", "View") + " >> nth=0"
        app.cli("press", view)
        item = app.wait_until("the View menu's Line Numbers item", lambda: line_numbers(app.elements()))[0]
        if "checked" in states(item):
            raise StepFailed("Line Numbers is checked before it is chosen")
        app.cli("click", item["ref"])
        app.cli("press", view)  # open the menu again to read the item
        app.wait_for("Line Numbers checked", lambda els: [e for e in line_numbers(els) if "checked" in states(e)])
        app.cli("key", "Escape")
        # The main menu's theme selector: "Dark style" has no action of its own.
        app.cli("press", labelled("button", "Menu") + " >> nth=0")
        dark = app.wait_until("the main menu's Dark style item", lambda: dark_style(app.elements()))[0]
        if "checked" in states(dark):
            raise StepFailed("Dark style is checked before it is chosen")
        app.cli("click", dark["ref"])
        app.wait_for("Dark style checked", lambda els: [e for e in dark_style(els) if "checked" in states(e)])
        app.cli("key", "Escape")
        return ("View > Line Numbers and Menu > Dark style, each by a real click on the popover item: "
                "Line Numbers reads checked when the menu opens again, Dark style at once")

    return [("text", text), ("button", button), ("menu", menu)]


# --- GTK 3: mousepad ------------------------------------------------------------------

def mousepad(app):
    def text():
        app.cli("type", "Hello compat", "--into", "role=textField")
        app.wait_for("the text view reads Hello compat", lambda els: [
            e for e in app.find("textField", elements=els) if e.get("value") == "Hello compat"])
        return "typed into the text view, read it back"

    def menu():
        if [e for e in app.find("button", "New") if "offscreen" not in states(e)]:
            raise StepFailed("the toolbar is shown before the menu is chosen")
        app.cli("menu", "View", "Toolbar")
        app.wait_for("the toolbar's New button shown", lambda els: [
            e for e in app.find("button", "New", elements=els) if "offscreen" not in states(e)])
        return "View > Toolbar shows the toolbar"

    def button():
        before = tab_count(app, app.tree())
        app.cli("press", labelled("button", "New"))
        app.wait_for(f"{before + 1} tabs", lambda els: tab_count(app, els) == before + 1)
        return f"toolbar New: {before} -> {before + 1} tabs"

    return [("text", text), ("menu", menu), ("button", button)]


# --- Modal dialogs in a nested loop: GTK 3 (PyGObject), wxWidgets, Swing --------------
# tests/apps: a window whose Ask button and File > Ask... item run a modal
# question (Gtk.Dialog.run, wx.MessageBox, JOptionPane); a label reads the
# answer. Before uidrive's calls that run the app's code took a lane of their
# own, the first real key to such a dialog froze GTK 3 and wx apps for good.

def dialog_window(app, title):
    return app.wait_until(f"the {title!r} dialog", lambda: [w for w in app.windows() if w["title"] == title])[0]


def dialog_gone(app, title):
    app.wait_until(f"the {title!r} dialog closed", lambda: not [w for w in app.windows() if w["title"] == title])


def answered(app, *texts):
    app.wait_for(f"the label reads {' or '.join(map(repr, texts))}",
                 lambda els: [e for t in texts for e in app.find("text", t, elements=els)])


def modal_app(title, field="role=textField", select=None):
    """The scenario of a tests/apps modal app whose question is titled `title`."""
    def scenario(app):
        def text():
            app.cli("fill", field, "Ada")
            app.wait_for("the field reads Ada", lambda els: [
                e for e in app.find("textField", elements=els) if e.get("value") == "Ada"])
            return "filled the field, read it back"

        def button():
            app.cli("press", labelled("button", "Ask"))
            dialog = dialog_window(app, title)
            app.elements(dialog["id"])  # the session reads the dialog: its window is the session's
            app.cli("key", "Enter")
            dialog_gone(app, title)
            # The session's window went: a plain snapshot follows the focus back.
            if not app.find("button", "Ask", elements=app.elements()):
                raise StepFailed("the snapshot after the dialog closed does not read the main window")
            # Enter presses the dialog's focused button: OK or Cancel, as the toolkit chose.
            answered(app, "answered OK", "answered Cancel")
            return "Ask opens the modal question; a real Enter answers it, and the label reads the answer"

        def menu():
            app.cli("menu", "File", "Ask...")
            dialog = dialog_window(app, title)
            app.cli("press", labelled("button", "Cancel"), "--window", str(dialog["id"]))
            dialog_gone(app, title)
            answered(app, "answered Cancel")
            return "File > Ask... opens it again; its Cancel pressed by action answers it"

        steps = [("text", text), ("button", button), ("menu", menu)]
        if select:
            steps.append(("select", lambda: select(app)))
        return steps
    return scenario


def wx_choice(app):
    app.cli("select", "role=comboBox", "Blue")
    answered(app, "chose Blue")
    return "select Blue on the Choice: the app's label reads chose Blue"


def swing_choices(app):
    app.cli("select", "role=comboBox", "Blue")
    answered(app, "colour Blue")
    app.cli("select", labelled("list", "Fruit"), "Cherry")
    answered(app, "fruit Cherry")
    return "select Blue on the combo box and Cherry in the list: the app's label reads each"


def swing_classes(work):
    """Compiles the Swing app of tests/apps into the suite's work folder."""
    out = os.path.join(work, "swing")
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.join(here, "..", "..", "tests", "apps", "SwingForm.java")
    subprocess.run(["javac", "-d", out, source], check=True)


# --- GTK 2: GIMP, a dialog -------------------------------------------------------------

def gimp(app):
    new_image = "Create a New Image"

    def menu():
        app.cli("menu", "File", "New...")
        dialog_window(app, new_image)
        return f"File > New... opens {new_image!r}"

    def text():
        dialog = dialog_window(app, new_image)
        app.cli("fill", labelled("stepper", "Width:"), "300", "--window", str(dialog["id"]))
        app.wait_for("Width: reads 300", lambda els: [
            e for e in app.find("stepper", "Width:", elements=els) if e.get("value") == "300"],
            window=dialog["id"])
        return "the dialog's Width: filled with 300, read back"

    def button():
        dialog = dialog_window(app, new_image)
        app.cli("press", labelled("button", "OK"), "--window", str(dialog["id"]))
        dialog_gone(app, new_image)
        app.wait_until("an image window 300 pixels wide",
                       lambda: [w for w in app.windows() if " 300x" in w["title"]])
        return "OK: the dialog closes and the image window's title reads 300x1080"

    return [("menu", menu), ("text", text), ("button", button)]


# --- Qt 6: Qt Designer, a tree view ------------------------------------------------------

def designer(app):
    def item(els, label):
        return [e for e in app.find("cell", label, elements=els)]

    def new_form():
        return dialog_window(app, "New Form")

    def button():
        dialog = new_form()
        # A real click on the tree's item, then its press by action: each
        # selects that item's row (Qt 6.4 selected the row above).
        app.cli("click", labelled("cell", "Main Window"), "--window", str(dialog["id"]))
        app.wait_for("Main Window selected", lambda els: [
            e for e in item(els, "Main Window") if "selected" in states(e)], window=dialog["id"])
        app.cli("press", labelled("cell", "Dialog without Buttons"), "--window", str(dialog["id"]))
        app.wait_for("Dialog without Buttons selected", lambda els: [
            e for e in item(els, "Dialog without Buttons") if "selected" in states(e)], window=dialog["id"])
        return "in New Form's tree, a click on Main Window and a press on Dialog without Buttons select their own rows"

    def menu():
        dialog = new_form()
        app.cli("press", labelled("button", "Close"), "--window", str(dialog["id"]))
        dialog_gone(app, "New Form")
        app.cli("menu", "File", "New...")
        dialog = new_form()
        app.cli("press", labelled("button", "Close"), "--window", str(dialog["id"]))
        dialog_gone(app, "New Form")
        return "Close answers New Form; File > New... opens it again, and Close answers it again"

    def text():
        main = app.windows()[0]["id"]
        app.cli("fill", labelled("textField", "Filter") + " >> nth=1", "Push", "--window", str(main))
        app.wait_for("a Filter field reads Push", lambda els: [
            e for e in app.find("textField", "Filter", elements=els) if e.get("value") == "Push"], window=main)
        return "the Widget Box's Filter field filled with Push, read back"

    return [("button", button), ("menu", menu), ("text", text)]


# --- GTK 3 tree view: gnome-system-monitor ----------------------------------------------

def column(els, header):
    """The texts of the process list's cells under `header`, top to bottom (headers come in
    column order; cells carry their column)."""
    headers = [e for e in els if e.get("role") == "columnHeader"]
    at = [h.get("label") for h in headers].index(header) + 1
    cells = [e for e in els if e.get("role") == "cell" and e.get("colIndex") == at]
    return [e.get("label") or "" for e in sorted(cells, key=lambda e: e.get("rowIndex", 0))]


def system_monitor(app):
    # A GTK 3 tree view sorts and filters its rows without an event for them: each step
    # passes only when a read after the change shows what the screen shows.
    def button():
        app.cli("click", labelled("columnHeader", "ID"))
        app.wait_for("the rows sorted by PID from PID 1", lambda els: (
            (pids := [int(p) for p in column(els, "ID") if p.isdigit()])[:1] == [1]
            and pids == sorted(pids)))
        app.cli("click", labelled("columnHeader", "ID"))
        app.wait_for("the rows sorted by PID, highest first", lambda els: (
            len(pids := [int(p) for p in column(els, "ID") if p.isdigit()]) > 1
            and pids == sorted(pids, reverse=True) and pids[0] > 1))
        return "clicked the ID header twice: rows read back from PID 1 up, then highest first"

    def text():
        own = "gnome-system-monitor"
        # The search matches command lines too: uidrive's own, which launched the app, stays.
        others = {n for n in column(app.tree(), "Process Name") if n and n not in (own, "uidrive")}
        if not others:
            raise StepFailed("no other process's row before the search")
        app.cli("key", "Ctrl+f")
        app.cli("type", own, "--into", labelled("textField", "Search"))

        def filtered(els):
            names = [n for n in column(els, "Process Name") if n]
            return own in names and not others.intersection(names) and column(els, "ID")

        app.wait_for(f"the rows filtered to {own}", filtered)
        return f"searched {own!r}: its row reads back (with its PID), the {len(others)} other rows shown are gone"

    def menu():
        app.cli("key", "Escape")  # out of the search
        app.cli("press", labelled("toggleButton", "Menu"))
        app.cli("press", labelled("button", "Preferences"))
        dialog = app.wait_until("the Preferences window", lambda: [
            w for w in app.windows() if w["title"] == "Preferences"])[0]
        interval = app.wait_for("the update interval in Preferences", lambda els: [
            e for e in els if e.get("role") == "stepper"], window=dialog["id"])[0]
        app.cli("key", "--window", str(dialog["id"]), "Escape")
        app.wait_until("the Preferences window gone", lambda: not [
            w for w in app.windows() if w["title"] == "Preferences"])
        app.elements(1)  # back to the main window
        return f"Menu > Preferences: a window with the update interval ({interval.get('value')} s); Escape closes it"

    return [("button", button), ("text", text), ("menu", menu)]


# --- KDE Frameworks (Qt 5): okular -------------------------------------------------------

def pdf_page(work):
    """A one-page PDF for Okular to show."""
    stream = b"BT /F1 24 Tf 72 700 Td (uidrive test page) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(os.path.join(work, "page.pdf"), "wb") as f:
        f.write(out)


def okular(app):
    def zoom(els):
        return next((e.get("label") for e in els if e.get("role") == "comboBox"
                     and (e.get("label") or "").endswith(("%", "Fit Width", "Fit Page", "Auto Fit"))), None)

    def popup_items(els):
        return [e for e in els if e.get("role") == "listItem" and (e.get("label") or "").endswith("%")
                and "offscreen" not in states(e)]

    def button():
        # A real click: at Xvfb's own 100 dpi Okular scaled itself and this click opened the
        # zoom drop-down instead.
        before = zoom(app.tree())
        app.cli("click", labelled("button", "Zoom In"))
        app.wait_for(f"the zoom changed from {before}", lambda els: zoom(els) not in (None, before))
        if popup_items(app.tree()):
            raise StepFailed("the zoom drop-down opened")
        return f"a real click on Zoom In: zoom {before} -> {zoom(app.tree())}, the drop-down stays shut"

    def text():
        field = "Enter at least 3 letters to filter pages"
        app.cli("type", "uidrive", "--into", labelled("textField", field))
        app.wait_for("the thumbnail filter reads uidrive", lambda els: [
            e for e in app.find("textField", field, elements=els) if e.get("value") == "uidrive"])
        return "typed into the thumbnail filter, read it back"

    def menu():
        app.cli("menu", "Settings", "Configure Okular...")
        dialog = app.wait_until("the Configure dialog", lambda: [
            w for w in app.windows() if w["title"].startswith("Configure")])[0]
        window = str(dialog["id"])
        box = labelled("checkBox", "Show scrollbars")

        def scrollbars(els):
            return [e for e in app.find("checkBox", "Show scrollbars", elements=els)]

        was = "checked" in states(app.wait_for("the dialog's Show scrollbars", scrollbars, window=dialog["id"])[0])
        app.cli("click", "--window", window, box)
        app.wait_for("Show scrollbars toggled by a real click", lambda els: [
            e for e in scrollbars(els) if ("checked" in states(e)) != was], window=dialog["id"])
        app.cli("click", "--window", window, labelled("button", "Cancel"))
        app.wait_until("the dialog gone", lambda: not [
            w for w in app.windows() if w["title"].startswith("Configure")])
        app.elements(1)  # back to the document's window for the next step
        return "Settings > Configure Okular...: a real click toggles Show scrollbars, Cancel closes the dialog"

    return [("button", button), ("text", text), ("menu", menu)]


# --- WebKitGTK: epiphany (the page runs in another process) --------------------------------

def epiphany(app):
    def text():
        app.cli("fill", labelled("textField", "Name"), "Ada")
        app.wait_for("the Name field reads Ada", lambda els: [
            e for e in app.find("textField", "Name", elements=els) if e.get("value") == "Ada"])
        return "filled Name in the page (WebKit's web process), read Ada back"

    def button():
        shown_options = [e for e in app.elements() if e.get("role") == "menuItem"
                         and e.get("label") in ("Small", "Medium", "Large")]
        if shown_options:
            raise StepFailed(f"the closed Size list's options are listed as controls: {shown_options}")
        app.cli("check", labelled("checkBox", "Gift wrap"))
        app.cli("press", labelled("button", "Send order"))
        app.wait_for("the page's result text", lambda els: [
            e for e in els if "Sent: Ada, Small, gift" in ((e.get("label") or "") + (e.get("value") or ""))])
        return "checked Gift wrap, pressed Send order: page reads 'Sent: Ada, Small, gift'"

    def zoom(els):
        return [e.get("label") for e in els if e.get("role") == "button"
                and (e.get("label") or "").endswith("%")]

    def menu():
        main_menu = labelled("toggleButton", "Menu") + " >> nth=1"  # the first is the bookmarks'
        app.cli("press", main_menu)
        app.wait_for("the main menu's zoom level 100%", lambda els: zoom(els) == ["100%"])
        app.cli("press", labelled("button", "Zoom In"))
        app.cli("key", "Escape")
        app.cli("press", main_menu)
        app.wait_for("the zoom level 110% when the menu opens again", lambda els: zoom(els) == ["110%"])
        app.cli("key", "Escape")
        return "Menu > Zoom In: the menu reads 110% when it opens again"

    return [("text", text), ("button", button), ("menu", menu)]


def page_loaded(app):
    app.wait_for("the form's Name field (the page in the tree)", has(app, "textField", "Name"), timeout=30)


# Elements whose value the values step must hold against the capture: Calc's A1, =6*7.
MUST_SHOW = {"calc": [("cell", "A1", "42")]}
# The values step follows the app's last step, or this one: a browser's menu step opens a new
# tab over the form; Calc's hides the formula bar, and after that uidrive reads only the
# sheet's last visible row of cells (a defect of the read, reported, not of the values).
VALUES_AFTER = {"firefox": "button", "chromium": "button", "calc": "text"}

READY = {"firefox": page_loaded, "chromium": page_loaded, "epiphany": page_loaded}

# On the Wayland backend (compat.py --backend wayland): the apps that cannot show there as
# native Wayland clients, with why (listed, neither passed nor failed; the Wayland desktop
# starts no Xwayland) ...
NOT_ON_WAYLAND = {
    "swing": "Java's AWT and Swing (Debian's OpenJDK 17) draw through X11 only: without Xwayland "
             "there is no display for them",
    "gimp": "GIMP 2.10 is a GTK 2 app, and GTK 2 has no Wayland backend: it needs Xwayland",
    "wx-modal": "wxPython 4.2 refuses to start without an X display (\"Unable to access the X Display, "
                "is $DISPLAY set properly?\"), though wxGTK 3.2 itself draws on Wayland",
}
# ... the command line an app needs there, when it is not the X11 one ...
ON_WAYLAND = {}
# ... and, per app, the steps that need what the Wayland backend answers `unsupported` for
# (crates/atspi/src/display.rs), with what: such a step ending on `unsupported` is listed as
# unsupported, neither passed nor failed; ending on anything else, it fails.
UNSUPPORTED_ON_WAYLAND = {}
# ... and the steps that fail there on a defect found and not fixed yet, with what it is: such
# a step failing is listed as known, neither passed nor failed (docs/apps.md, Wayland).
FAILS_ON_WAYLAND = {
    "linguist": {
        "values": "Tiled by sway to 1920x1200, Linguist draws its label 'Translation to Deutsch "
                  "(Deutschland)' with the tops of its letters cut off (the capture shows it so), and "
                  "tesseract reads the cut glyphs as other words.",
    },
}

APPS = {
    "kcalc": (["kcalc"], kcalc, 60000, None),
    "featherpad": (["featherpad"], featherpad, 60000, None),
    "linguist": (["/usr/lib/qt6/bin/linguist", "{here}/sample.ts"], linguist, 60000, None),
    # No profile prepared here: uidrive's launch gives each browser a fresh one with
    # its first-run pages off (crates/facade/src/browser.rs).
    "firefox": (["firefox-esr", FORM], firefox, 90000, None),
    "chromium": (["chromium", FORM], chromium, 90000, None),
    "writer": (office_argv("lowriter", "lo-writer"), writer, 90000, no_office_tips("lo-writer")),
    "calc": (office_argv("localc", "lo-calc"), calc, 90000, None),
    "gnome-text-editor": (["gnome-text-editor", "--standalone"], text_editor, 60000, None),
    "mousepad": (["mousepad"], mousepad, 60000, None),
    "gtk3-modal": (["/usr/bin/python3", "{here}/../../tests/apps/gtk3_modal.py"],
                   modal_app("Question"), 60000, None),
    "wx-modal": (["/usr/bin/python3", "{here}/../../tests/apps/wx_modal.py"],
                 modal_app("Information", select=wx_choice), 60000, None),
    "swing": (["java", "-cp", "{work}/swing", "SwingForm"],
              modal_app("Question", field=labelled("textField", "Name"), select=swing_choices), 60000,
              swing_classes),
    "gimp": (["gimp", "-n", "-s", "-d", "-f"], gimp, 120000, None),
    "designer": (["/usr/lib/qt6/bin/designer"], designer, 60000, None),
    "system-monitor": (["gnome-system-monitor"], system_monitor, 60000, None),
    "okular": (["okular", "{work}/page.pdf"], okular, 60000, pdf_page),
    "epiphany": (["epiphany", "--private-instance", FORM], epiphany, 90000, None),
}
