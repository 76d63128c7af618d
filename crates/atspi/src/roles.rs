//! AT-SPI roles to the protocol's roles: one row for every role AT-SPI defines.

use uidrive_core::protocol::Role;

/// The protocol role for an AT-SPI role number (`Accessible.GetRole`).
///
/// Roles with no counterpart of their own map to the nearest kind a test
/// would look for: containers to `group`, static text to `text`.
pub fn protocol_role(atspi_role: u32) -> Role {
    match atspi_role {
        1 => Role::Text,             // accelerator label
        2 => Role::Alert,            // alert
        3 => Role::Image,            // animation
        4 => Role::Button,           // arrow
        5 => Role::Grid,             // calendar
        6 => Role::Group,            // canvas
        7 => Role::CheckBox,         // check box
        8 => Role::MenuItemCheckBox, // check menu item
        9 => Role::ColorWell,        // color chooser
        10 => Role::ColumnHeader,    // column header
        11 => Role::ComboBox,        // combo box
        12 => Role::TextField,       // date editor
        13 => Role::Image,           // desktop icon
        14 => Role::Group,           // desktop frame
        15 => Role::Slider,          // dial
        16 => Role::Dialog,          // dialog
        17 => Role::Group,           // directory pane
        18 => Role::Image,           // drawing area
        19 => Role::Dialog,          // file chooser
        20 => Role::Group,           // filler
        21 => Role::Group,           // focus traversable
        22 => Role::Dialog,          // font chooser
        23 => Role::Group,           // frame (the window itself)
        24 => Role::Group,           // glass pane
        25 => Role::Group,           // html container
        26 => Role::Image,           // icon
        27 => Role::Image,           // image
        28 => Role::Group,           // internal frame
        29 => Role::Text,            // label
        30 => Role::Group,           // layered pane
        31 => Role::List,            // list
        32 => Role::ListItem,        // list item
        33 => Role::Menu,            // menu
        34 => Role::MenuBar,         // menu bar
        35 => Role::MenuItem,        // menu item
        36 => Role::Group,           // option pane
        37 => Role::Tab,             // page tab
        38 => Role::TabList,         // page tab list
        39 => Role::Group,           // panel
        40 => Role::TextField,       // password text
        41 => Role::Menu,            // popup menu
        42 => Role::Progress,        // progress bar
        43 => Role::Button,          // push button
        44 => Role::Radio,           // radio button
        45 => Role::MenuItemRadio,   // radio menu item
        46 => Role::Group,           // root pane
        47 => Role::RowHeader,       // row header
        48 => Role::Scroll,          // scroll bar
        49 => Role::Scroll,          // scroll pane
        50 => Role::Separator,       // separator
        51 => Role::Slider,          // slider
        52 => Role::Stepper,         // spin button
        53 => Role::Splitter,        // split pane
        54 => Role::Status,          // status bar
        55 => Role::Table,           // table
        56 => Role::Cell,            // table cell
        57 => Role::ColumnHeader,    // table column header
        58 => Role::RowHeader,       // table row header
        59 => Role::MenuItem,        // tearoff menu item
        60 => Role::TextField,       // terminal
        61 => Role::TextField,       // text (editable text)
        62 => Role::ToggleButton,    // toggle button
        63 => Role::Toolbar,         // tool bar
        64 => Role::Tooltip,         // tool tip
        65 => Role::Tree,            // tree
        66 => Role::TreeGrid,        // tree table
        67 => Role::Group,           // unknown
        68 => Role::Group,           // viewport
        69 => Role::Group,           // window
        70 => Role::Group,           // extended
        71 => Role::Banner,          // header
        72 => Role::ContentInfo,     // footer
        73 => Role::Text,            // paragraph
        74 => Role::Group,           // ruler
        75 => Role::Group,           // application
        76 => Role::ComboBox,        // autocomplete
        77 => Role::Toolbar,         // edit bar
        78 => Role::Group,           // embedded
        79 => Role::TextField,       // entry
        80 => Role::Image,           // chart
        81 => Role::Text,            // caption
        82 => Role::Group,           // document frame
        83 => Role::Heading,         // heading
        84 => Role::Region,          // page
        85 => Role::Group,           // section
        86 => Role::Group,           // redundant object
        87 => Role::Region,          // form
        88 => Role::Link,            // link
        89 => Role::Group,           // input method window
        90 => Role::Row,             // table row
        91 => Role::TreeItem,        // tree item
        92 => Role::Grid,            // spreadsheet document
        93 => Role::Group,           // presentation document
        94 => Role::Group,           // text document
        95 => Role::Group,           // web document
        96 => Role::Group,           // email document
        97 => Role::Text,            // comment
        98 => Role::List,            // list box
        99 => Role::Group,           // grouping
        100 => Role::Image,          // image map
        101 => Role::Alert,          // notification
        102 => Role::Status,         // info bar
        103 => Role::Meter,          // level bar
        104 => Role::Toolbar,        // title bar
        105 => Role::Text,           // block quote
        106 => Role::Group,          // audio
        107 => Role::Group,          // video
        108 => Role::Text,           // definition
        109 => Role::Article,        // article
        110 => Role::Region,         // landmark
        111 => Role::Log,            // log
        112 => Role::Status,         // marquee
        113 => Role::Image,          // math
        114 => Role::Slider,         // rating
        115 => Role::Timer,          // timer
        116 => Role::Text,           // static
        117 => Role::Group,          // math fraction
        118 => Role::Group,          // math root
        119 => Role::Text,           // subscript
        120 => Role::Text,           // superscript
        121 => Role::List,           // description list
        122 => Role::ListItem,       // description term
        123 => Role::Text,           // description value
        124 => Role::Text,           // footnote
        125 => Role::Deletion,       // content deletion
        126 => Role::Insertion,      // content insertion
        127 => Role::Text,           // mark
        128 => Role::Insertion,      // suggestion
        129 => Role::MenuButton,     // push button with a menu
        _ => Role::Group,            // invalid, or a role newer than this table
    }
}

/// Roles whose object is a top-level window of an app.
pub fn is_window_role(atspi_role: u32) -> bool {
    // 20 (filler): a Qt 6 window that is only a widget (qt6ct's) shows as one.
    matches!(atspi_role, 2 | 16 | 19 | 20 | 22 | 23 | 28 | 69 | 101)
}

/// Roles whose text is the element's value rather than its label.
pub fn has_text_value(atspi_role: u32) -> bool {
    matches!(
        atspi_role,
        11 | 12 | 40 | 52 | 60 | 61 | 76 | 79 | 82 | 94 | 95
    )
}

/// Controls whose label may come from another element (the labelled-by relation).
pub fn is_labelled_control(atspi_role: u32) -> bool {
    matches!(
        atspi_role,
        7 | 11
            | 15
            | 31
            | 40
            | 42
            | 43
            | 44
            | 51
            | 52
            | 55
            | 61
            | 62
            | 65
            | 66
            | 76
            | 79
            | 98
            | 103
            | 114
            | 129
    )
}

/// Ranges a person sets (sliders, spin buttons, scroll bars), unlike progress bars and meters.
pub fn is_adjustable_range(atspi_role: u32) -> bool {
    matches!(atspi_role, 15 | 48 | 51 | 52 | 114)
}

/// Containers with no other job (fillers, panels), whose children a stale
/// cache may miss.
pub fn is_plain_container(atspi_role: u32) -> bool {
    matches!(atspi_role, 20 | 39)
}

/// Roles whose Value interface means something: ranges a person moves,
/// progress bars, level bars and split panes that show one, and table cells
/// (a spreadsheet's number). LibreOffice's menu items implement Value too,
/// with nothing in it.
pub fn has_range_value(atspi_role: u32) -> bool {
    is_adjustable_range(atspi_role) || matches!(atspi_role, 42 | 53 | 56 | 103)
}

/// A spreadsheet's cell (Calc's): a table cell with a number in its Value
/// interface and what it shows, a number or a text, in its Text interface.
pub fn is_spreadsheet_cell(atspi_role: u32, has_value: bool) -> bool {
    atspi_role == 56 && has_value
}

/// Whether elements of the role can offer actions worth asking for. GTK 4
/// lists the Action interface on every element; labels, panels and other
/// containers never have an action there, so they are not asked.
pub fn may_act(atspi_role: u32) -> bool {
    !matches!(
        atspi_role,
        20 | 23 | 26 | 27 | 29 | 39 | 48 | 49 | 50 | 68 | 69 | 73 | 85 | 99
    )
}

/// Controls that open a menu or a popover when pressed.
pub fn opens_menu(atspi_role: u32) -> bool {
    matches!(atspi_role, 11 | 43 | 62 | 129)
}

/// Roles of the items of a menu.
pub fn is_menu_item(atspi_role: u32) -> bool {
    matches!(atspi_role, 8 | 35 | 45 | 59)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_atspi_role_has_a_protocol_role() {
        for role in 0..=129 {
            assert!(protocol_role(role).is_known(), "AT-SPI role {role}");
        }
        assert_eq!(protocol_role(43), Role::Button);
        assert_eq!(protocol_role(7), Role::CheckBox);
        assert_eq!(protocol_role(79), Role::TextField);
        assert_eq!(protocol_role(52), Role::Stepper);
        assert_eq!(protocol_role(29), Role::Text);
    }
}
