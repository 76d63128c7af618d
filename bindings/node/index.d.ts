// Types for uidrive's Node module. Every call that talks to an app returns a
// Promise and runs off the event loop; locators and `expect` are made at once.

/// <reference types="node" />

/**
 * Which step of `App.close` ended the app: its windows closed when asked,
 * SIGTERM, SIGKILL, it had already exited, or uidrive did not launch it.
 */
export type ClosedBy = 'windows' | 'terminated' | 'killed' | 'exited' | 'detached';

// ---------------------------------------------------------------------------
// The protocol's vocabulary (strings on the wire; a newer server may send others).

/** The protocol's role names: what a `Node`'s `role` holds. */
export type ProtocolRole =
  | 'group' | 'text' | 'button' | 'link' | 'checkBox' | 'radio' | 'switch' | 'slider'
  | 'progress' | 'textField' | 'image' | 'list' | 'scroll' | 'dialog' | 'popup' | 'tooltip'
  | 'popUpButton' | 'tabList' | 'tab' | 'splitter' | 'status' | 'table' | 'row' | 'cell'
  | 'columnHeader' | 'tree' | 'treeItem' | 'listItem' | 'menuButton' | 'toolbar'
  | 'radioGroup' | 'toggleButton' | 'comboBox' | 'disclosure' | 'meter' | 'stepper'
  | 'colorWell' | 'alertDialog' | 'menu' | 'menuBar' | 'menuItem' | 'menuItemCheckBox'
  | 'menuItemRadio' | 'heading' | 'region' | 'log' | 'timer' | 'alert' | 'separator'
  | 'rowHeader' | 'search' | 'article' | 'navigation' | 'grid' | 'treeGrid' | 'deletion'
  | 'insertion' | 'tabPanel' | 'main' | 'banner' | 'contentInfo' | 'complementary';

/**
 * ARIA's role names (as Playwright's `getByRole` takes them) that uidrive
 * accepts as the protocol roles they alias: `textbox` is `textField`,
 * `checkbox` is `checkBox`, and so on (core's `names::ARIA_ALIASES`).
 */
export type AriaRole =
  | 'textbox' | 'searchbox' | 'checkbox' | 'combobox' | 'listbox' | 'listitem' | 'option'
  | 'img' | 'progressbar' | 'scrollbar' | 'spinbutton' | 'tablist' | 'tabpanel' | 'treeitem'
  | 'treegrid' | 'gridcell' | 'columnheader' | 'rowheader' | 'radiogroup' | 'menubar'
  | 'menuitem' | 'menuitemcheckbox' | 'menuitemradio' | 'alertdialog' | 'contentinfo';

/** A role `getByRole` takes: a closed union, so a misspelt role is a type error. */
export type Role = ProtocolRole | AriaRole;

export type State =
  | 'focusable' | 'disabled' | 'checked' | 'mixed' | 'selected' | 'expanded' | 'multiline'
  | 'password' | 'readOnly' | 'selectable' | 'offscreen' | 'multiselectable' | 'segment'
  | 'search' | 'invalid' | 'sortAscending' | 'sortDescending' | 'expandable' | 'vertical'
  | 'busy' | 'sortOther' | 'horizontal'
  | (string & {});

export type Action =
  | 'press' | 'focus' | 'increment' | 'decrement' | 'setValue' | 'insertText' | 'selectText'
  | 'scrollIntoView' | 'expand' | 'collapse'
  | (string & {});

/** A rectangle in DIPs. */
export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A window, as `windows()` lists it. */
export interface WindowInfo {
  id: number;
  title: string;
  kind: 'content' | 'page' | (string & {});
  url?: string;
  bounds: Bounds;
  contentBounds: Bounds;
  focused: boolean;
  visible: boolean;
  [field: string]: unknown;
}

/** A window as the window manager shows it, once an operation's effect read back so. */
export interface WindowState {
  id: number;
  /** The window's content on the screen. */
  bounds: Bounds;
  /** Which of `minimized`, `maximized`, `fullscreen`, `focused`, `above` hold. */
  states: string[];
  /** Its place in the stacking order, 0 at the bottom (front = highest). */
  zIndex?: number;
  /** `confirmed` (an operation), `read` (bounds, states). */
  effect: string;
  /** The window went (after `close`). */
  closed?: boolean;
}

/** An app on the desktop's accessibility bus. */
export interface DesktopApp {
  name: string;
  pid: number;
  toolkit: string;
  /** Its windows' titles. */
  windows: string[];
}

/** One element of a window. `id` is a 64-bit number written as a string of digits. */
export interface Node {
  id: string;
  parent?: string;
  /** The protocol's name (a newer server may send one this version does not list). */
  role: ProtocolRole | (string & {});
  key?: string | number | boolean;
  label?: string;
  value?: string;
  placeholder?: string;
  /** A web element's classes (its `class` attribute, split). */
  classes?: string[];
  /** A web element's tag name. */
  tag?: string;
  description?: string;
  bounds?: Bounds;
  states?: State[];
  actions?: Action[];
  min?: number;
  max?: number;
  now?: number;
  step?: number;
  /** The selected runes `[start, end)` of a text field; equal for a caret. */
  selection?: [number, number];
  level?: number;
  posInSet?: number;
  setSize?: number;
  rowCount?: number;
  colCount?: number;
  rowIndex?: number;
  colIndex?: number;
  rowSpan?: number;
  colSpan?: number;
  current?: true | string;
  autoComplete?: 'inline' | 'list' | 'both' | (string & {});
  roleDescription?: string;
  hasPopup?: string;
  controls?: string[];
  describedBy?: string[];
  errorMessage?: string[];
  keyShortcuts?: string;
  webView?: boolean;
  [field: string]: unknown;
}

/** The answer to `tree()`: a window's elements, a parent before its children. */
export interface Tree {
  window: number;
  focus?: string;
  nodes: Node[];
  announcements?: unknown[];
  [field: string]: unknown;
}

export type Modifier = 'shift' | 'ctrl' | 'alt' | 'super' | 'cmdOrCtrl';
export type MouseButton = 'left' | 'right' | 'middle';
/** What an accessibility event announces. */
export type EventKind = 'focus' | 'value' | 'name' | 'states' | 'children' | 'window';
/** An event as `App.waitForEvent` resolves it: the new `value` where it has one. */
export interface AccessibilityEvent {
  kind: EventKind;
  detail: string;
  element?: string;
  window?: number;
  node?: Node;
  value?: string;
}

/** A key chord as accelerators write it: `Enter`, `Shift+Tab`, `CmdOrCtrl+Z`. */
export type KeyChord = string;

interface PointerButtonFields {
  x: number;
  y: number;
  button?: MouseButton;
  /** 2 for a double click, 3 for a triple click. */
  clicks?: number;
  mods?: Modifier[];
}

/** One `input` event; coordinates are DIPs relative to the window's content. */
export type InputEvent =
  | { type: 'pointerMove'; x: number; y: number; mods?: Modifier[] }
  | ({ type: 'pointerDown' } & PointerButtonFields)
  | ({ type: 'pointerUp' } & PointerButtonFields)
  | ({ type: 'click' } & PointerButtonFields)
  | { type: 'wheel'; x: number; y: number; dx: number; dy: number; precise?: boolean; mods?: Modifier[] }
  | { type: 'keyDown'; key: KeyChord }
  | { type: 'keyUp'; key: KeyChord }
  | { type: 'key'; key: KeyChord }
  | { type: 'text'; text: string };

/** The protocol's `act` params: an action on an element named by `id` or `key`. */
export interface ActParams {
  window?: number;
  id?: string;
  key?: string | number | boolean;
  action: Action;
  text?: string;
  from?: number;
  to?: number;
}

// ---------------------------------------------------------------------------
// Errors

export type ErrorCode =
  | 'parse_error' | 'invalid_request' | 'unknown_method' | 'no_window' | 'no_element'
  | 'unsupported' | 'timeout' | 'failed' | 'disconnected' | 'protocol_error' | 'ambiguous'
  | 'not_actionable' | 'stale_ref' | 'app_exited' | 'assertion_failed'
  | (string & {});

/** What every rejected Promise (and every synchronous throw) of this module carries. */
export interface UidriveError extends Error {
  code: ErrorCode;
  message: string;
  suggestion: string;
}

// ---------------------------------------------------------------------------
// Options

/** Text to match: a string (case-insensitive substring unless `exact`) or a RegExp. */
export type TextMatch = string | RegExp;

export interface LaunchOptions {
  /** Extra environment variables for the app (a Desktop's `env` says where its display and buses are). */
  env?: Record<string, string>;
  /** Milliseconds to wait for the app's first window (or its socket). */
  timeout?: number;
  /** Launch an app that speaks the protocol: this variable gets a fresh socket path. */
  socketEnv?: string;
  /** Keep what the app writes on stdout and stderr, for `app.process`. */
  captureOutput?: boolean;
}

export interface AttachOptions {
  env?: Record<string, string>;
  timeout?: number;
}

export type AttachTarget = { pid: number } | { name: string };

export interface HeadlessOptions {
  /** Screen size in pixels (1920 × 1200 by default). */
  width?: number;
  height?: number;
  /** Milliseconds each start-up step may take. */
  timeout?: number;
  /** `"x11"` (Xvfb, the default) or `"wayland"` (sway, headless, no X server). */
  backend?: 'x11' | 'wayland';
  /**
   * On the Wayland backend: run Xwayland too, so apps that speak only X11
   * can show. Apps still start as native Wayland clients unless told
   * otherwise (`env: { GDK_BACKEND: 'x11' }`).
   */
  xwayland?: boolean;
}

export interface WindowOptions {
  /** A window id from `windows()`; the focused window (else the first) when left out. */
  window?: number;
}

export interface IdleOptions extends WindowOptions {
  /** Milliseconds. */
  timeout?: number;
}

export interface SnapshotOptions extends WindowOptions {
  /** Controls only, one flat list (else every element, indented by depth). */
  interactive?: boolean;
}

export interface RoleOptions {
  /** The accessible name. */
  name?: TextMatch;
  /** Match `name` whole and case-sensitively. */
  exact?: boolean;
  checked?: boolean;
  disabled?: boolean;
  expanded?: boolean;
  selected?: boolean;
  /** The heading or tree level. */
  level?: number;
  /** Match hidden elements too. */
  includeHidden?: boolean;
}

export interface TextOptions {
  /** Match the whole text, case-sensitively. */
  exact?: boolean;
  includeHidden?: boolean;
}

/** Options of `getByOcr`. */
export interface OcrOptions {
  /** Match the whole text, case-sensitively. */
  exact?: boolean;
}

/** Options of `getByImage`. */
export interface ImageOptions {
  /** The least score a place must reach, above 0 and at most 1 (0.9 by default). */
  threshold?: number;
}

/** A box in a window's pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WaitChangedOptions {
  /** Only this part of the window. */
  region?: Region;
  /** Milliseconds, 10 000 by default. */
  timeout?: number;
  window?: number;
}

export interface FilterOptions {
  hasText?: TextMatch;
  hasNotText?: TextMatch;
  has?: Locator;
  hasNot?: Locator;
}

export interface ActionOptions {
  /** Milliseconds to wait for one ready element, over the App's default. */
  timeout?: number;
}

export interface ClickOptions extends ActionOptions {
  /** The mouse button: `'left'` (the default), `'right'` (a context menu) or `'middle'`. */
  button?: MouseButton;
  /** Presses in a row, 1 (the default) to 3: 2 is a double click. */
  clickCount?: number;
}

/** Which way `scroll` turns the wheel. */
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface ScrollOptions extends ActionOptions {
  /** Wheel clicks, 1 (the default) to 1000. */
  notches?: number;
}

export interface StepOptions extends ActionOptions {
  /** Steps of the element's own action, 1 (the default) to 1000. */
  steps?: number;
}

export interface ExpectOptions {
  /** Milliseconds to keep trying, over the App's expect timeout (5 s by default). */
  timeout?: number;
}

export interface ExpectTextOptions extends ExpectOptions {
  /** Ignore case (Playwright's `ignoreCase`). */
  ignoreCase?: boolean;
  /**
   * Kept for tests written before a string meant the whole text: `true` is
   * what a string means now; `false` is refused (use `toContainText`).
   */
  exact?: boolean;
}

export interface Timeouts {
  /** Milliseconds actions and strict reads wait. */
  action: number;
  /** Milliseconds `expect` waits. */
  expect: number;
}

// ---------------------------------------------------------------------------
// Answers

/**
 * What an action did, and how (its element's own action, real input, or
 * nothing needed), and what the tree showed of it: `confirmed` (the change
 * the action is for, said in `observed`) or `unverifiable` (nothing the
 * tree shows can prove it; `checked` says what was looked at). An action
 * whose effect did not come rejects instead.
 */
export interface ActionOutcome {
  route: `semantic:${string}` | 'input' | 'not_needed';
  effect: 'confirmed' | 'unverifiable';
  /** What the tree showed, for a `confirmed` effect. */
  observed?: string;
  /** What was looked at, for an `unverifiable` effect. */
  checked?: string;
  /** The element acted on, as last read (after the action where it was read again). */
  element: Node;
  window: number;
  /** The windows the action closed (a dialog's Close), when it closed any. */
  closed?: number[];
}

export interface SnapshotElement {
  /** A short name (`@e3`) that lasts while the element does; give it to `getByRef`. */
  ref: string;
  id: string;
  role: ProtocolRole | (string & {});
  label?: string;
  value?: string;
  key?: string;
  states?: string[];
  depth: number;
  parent?: string;
  children?: number;
  interactive?: boolean;
  offscreen?: boolean;
}

export interface Snapshot {
  window: number;
  elements: SnapshotElement[];
  /** One line per element shown, as `@e2 [button] "Add" key=add`. */
  text: string;
}

// ---------------------------------------------------------------------------
// Finding

/** The `getBy*` family: App, Window and Locator all have it. */
interface Finders {
  getByRole(role: Role, options?: RoleOptions): Locator;
  /** The app's own name for an element (the protocol's `key`: the test id). */
  getByKey(key: string | number | boolean): Locator;
  getByText(text: TextMatch, options?: TextOptions): Locator;
  getByLabel(text: TextMatch, options?: TextOptions): Locator;
  getByPlaceholder(text: TextMatch, options?: TextOptions): Locator;
  /** By element id (ids last only while the view does: prefer keys). */
  getById(id: string): Locator;
}

/** One app under automation. */
export declare class App implements Finders {
  private constructor();
  /** The pid of the process uidrive launched, if it launched one. */
  readonly pid: number | null;
  /** Recording a trace of this app's steps. */
  readonly tracing: Tracing;
  windows(): Promise<WindowInfo[]>;
  /** A window to search in, by title (waited for at each use), by id, or the focused one. */
  window(options?: { title?: TextMatch; exact?: boolean; id?: number }): Window;
  tree(options?: WindowOptions): Promise<Tree>;
  /** The window as PNG bytes. */
  capture(options?: WindowOptions): Promise<Buffer>;
  /** Chooses a menu-bar item by the labels along its path, as `['File', 'Quit']`. */
  menu(path: string[], options?: WindowOptions): Promise<void>;
  input(events: InputEvent[], options?: WindowOptions): Promise<void>;
  /** Resolves once the window has settled; rejects with `timeout` otherwise. */
  idle(options?: IdleOptions): Promise<void>;
  /** Waits until the window's pixels change, then settle (two captures alike); resolves to the region watched. */
  waitChanged(options?: WaitChangedOptions): Promise<Region>;
  /** Waits until a window whose title matches shows (a dialog an action opens); milliseconds, 10 000 by default. */
  waitForWindow(title: TextMatch, options?: { timeout?: number }): Promise<WindowInfo>;
  /** Waits for an accessibility event the app sends, of `target`'s element if given; milliseconds, 10 000 by default. */
  waitForEvent(kind: EventKind, target?: Locator | null, options?: { timeout?: number }): Promise<AccessibilityEvent>;
  /** Runs `action` and resolves to the window it opened, found by its appearance (a new id), whatever its title. */
  waitForWindow(action: () => unknown, options?: { timeout?: number }): Promise<WindowInfo>;
  /** Waits for a window whose id is not in `before` (ids `windows()` gave). */
  waitForNewWindow(before: number[], options?: { timeout?: number }): Promise<WindowInfo>;
  /** Every app on the desktop's accessibility bus. */
  apps(): Promise<DesktopApp[]>;
  /** The whole screen as PNG bytes. */
  captureScreen(): Promise<Buffer>;
  eval(script: string, options?: WindowOptions): Promise<unknown>;
  /** The protocol's `act`: the low-level door under locators. */
  act(params: ActParams): Promise<void>;
  /** Any protocol method by name with JSON params. */
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  snapshot(options?: SnapshotOptions): Promise<Snapshot>;
  /** The element a snapshot ref (`@e3`) names. */
  getByRef(ref: string): Locator;
  /** The keyboard: real key and text input into the focused element. */
  readonly keyboard: Keyboard;
  /** The process uidrive launched, or null for an app it connected or attached to. */
  readonly process: Process | null;
  getByRole(role: Role, options?: RoleOptions): Locator;
  getByKey(key: string | number | boolean): Locator;
  getByText(text: TextMatch, options?: TextOptions): Locator;
  getByLabel(text: TextMatch, options?: TextOptions): Locator;
  getByPlaceholder(text: TextMatch, options?: TextOptions): Locator;
  /** Boxes where OCR reads the text on the window's capture (apps with no accessibility tree). */
  getByOcr(text: TextMatch, options?: OcrOptions): Locator;
  /** Boxes where the PNG file's picture shows on the window's capture. */
  getByImage(path: string, options?: ImageOptions): Locator;
  getById(id: string): Locator;
  /** A locator from its string form, as `role=button[name="Add"] >> nth=0`. */
  locator(selector: string): Locator;
  timeouts(): Timeouts;
  setTimeouts(timeouts: Partial<Timeouts>): void;
  /**
   * Ends the process uidrive launched, if any, a step at a time while it
   * runs: its windows are asked to close (as a window manager's close button
   * asks), then SIGTERM, then SIGKILL, each after a grace period. Resolves to
   * which step ended it. Closing twice does nothing.
   */
  close(): Promise<ClosedBy>;
}

/** Where locators start: one window of an app. */
/** The process uidrive launched (`app.process`). */
export declare class Process {
  private constructor();
  readonly pid: number;
  /** The exit code once it has ended (`-N` for signal `N`), else null. */
  readonly exitCode: number | null;
  /** What it wrote on stdout; null unless launched with `captureOutput: true`. */
  readonly stdout: string | null;
  /** What it wrote on stderr; null unless captured. */
  readonly stderr: string | null;
  /** Waits up to `timeout` ms (30 000 by default) for it to end; its exit code. */
  wait(timeout?: number): Promise<number>;
}

/** Real key and text input into whatever element has the focus (`app.keyboard`). */
export declare class Keyboard {
  private constructor();
  /**
   * Types `text`: at once, or one character at a time `delay` ms apart; then
   * waits until the focused element reads it (`confirmed`), rejects saying
   * what it reads when it does not, or answers `unverifiable` when nothing
   * focused shows text.
   */
  type(text: string, options?: { delay?: number; window?: number }): Promise<ActionOutcome>;
  /**
   * Presses a key chord such as `Enter`, `Ctrl+A` or `CmdOrCtrl+Shift+Z`:
   * `confirmed` when the focus moved, the focused element changed or a
   * window opened or closed, else `unverifiable`.
   */
  press(chord: KeyChord, options?: { window?: number }): Promise<ActionOutcome>;
  /**
   * Presses the chord's keys (`Shift`, `Ctrl+Shift`) and leaves them down
   * for the clicks and keys that follow, until `up` releases them or the app
   * closes. `unverifiable`: a held key shows nothing by itself.
   */
  down(chord: KeyChord, options?: { window?: number }): Promise<ActionOutcome>;
  /** Releases keys `down` holds. `unverifiable`. */
  up(chord: KeyChord, options?: { window?: number }): Promise<ActionOutcome>;
}

export declare class Window implements Finders {
  private constructor();
  getByRole(role: Role, options?: RoleOptions): Locator;
  getByKey(key: string | number | boolean): Locator;
  getByText(text: TextMatch, options?: TextOptions): Locator;
  getByLabel(text: TextMatch, options?: TextOptions): Locator;
  getByPlaceholder(text: TextMatch, options?: TextOptions): Locator;
  /** Boxes where OCR reads the text on the window's capture (apps with no accessibility tree). */
  getByOcr(text: TextMatch, options?: OcrOptions): Locator;
  /** Boxes where the PNG file's picture shows on the window's capture. */
  getByImage(path: string, options?: ImageOptions): Locator;
  getById(id: string): Locator;
  locator(selector: string): Locator;
  /** Moves the window's content to `x`, `y` on the screen through the window manager (confirmed). */
  move(x: number, y: number): Promise<WindowState>;
  resize(width: number, height: number): Promise<WindowState>;
  minimize(): Promise<WindowState>;
  maximize(): Promise<WindowState>;
  restore(): Promise<WindowState>;
  /** Raises the window and gives it the focus. */
  focus(): Promise<WindowState>;
  /** Asks the window to close as its close button does; resolves once it went. */
  close(): Promise<WindowState>;
  bounds(): Promise<Bounds>;
  states(): Promise<string[]>;
}

/**
 * A lazy description of elements: resolved against a fresh tree at every use,
 * waited for until it can take the action, and never guessed at when more
 * than one element matches (`ambiguous`).
 */
export declare class Locator implements Finders {
  private constructor();
  /** What the locator says, as error messages show it. */
  readonly description: string;
  toString(): string;

  getByRole(role: Role, options?: RoleOptions): Locator;
  getByKey(key: string | number | boolean): Locator;
  getByText(text: TextMatch, options?: TextOptions): Locator;
  getByLabel(text: TextMatch, options?: TextOptions): Locator;
  getByPlaceholder(text: TextMatch, options?: TextOptions): Locator;
  getById(id: string): Locator;
  /** Elements a selector string, or another Locator, finds inside this one's elements. */
  locator(selector: string | Locator): Locator;
  nth(index: number): Locator;
  /**
   * The cell at `row` and `column` (both from 1, as a cell's `rowIndex` and
   * `colIndex`) of the tables this locator finds. A table too big to read
   * whole (its node is `truncated`) is asked for that one cell, so a cell
   * scrolled out of view is found too. 0 fails at first use with
   * `invalid_request`; a negative or fractional number throws at once.
   */
  cell(row: number, column: number): Locator;
  first(): Locator;
  last(): Locator;
  filter(options: FilterOptions): Locator;
  /** Whether hidden elements match too (`true` when left out). */
  includeHidden(include?: boolean): Locator;
  /** This locator with its own default wait, in milliseconds. */
  withTimeout(timeout: number): Locator;

  /**
   * A real click where the app's hit test says it lands on the element, else
   * its own press action (`route` says which). Another `button`, or a
   * `clickCount` of 2 or 3: always real clicks of that button in a row, never
   * the element's own action. A button or count it cannot send rejects with
   * `invalid_request` before anything is looked for.
   */
  click(options?: ClickOptions): Promise<ActionOutcome>;
  /** Presses it as assistive technology does: its own press action, else a click. */
  activate(options?: ActionOptions): Promise<ActionOutcome>;
  /** Types real keys one at a time, `delay` ms apart, then reads them back. */
  pressSequentially(text: string, options?: { delay?: number; timeout?: number }): Promise<ActionOutcome>;
  dblclick(options?: ActionOptions): Promise<ActionOutcome>;
  /** Replaces the element's text. */
  fill(text: string, options?: ActionOptions): Promise<ActionOutcome>;
  /** Inserts text at the caret. */
  type(text: string, options?: ActionOptions): Promise<ActionOutcome>;
  /** Presses a key chord, as `Enter` or `Ctrl+A`. */
  press(key: KeyChord, options?: ActionOptions): Promise<ActionOutcome>;
  check(options?: ActionOptions): Promise<ActionOutcome>;
  uncheck(options?: ActionOptions): Promise<ActionOutcome>;
  setChecked(checked: boolean, options?: ActionOptions): Promise<ActionOutcome>;
  selectOption(option: TextMatch, options?: ActionOptions): Promise<ActionOutcome>;
  hover(options?: ActionOptions): Promise<ActionOutcome>;
  focus(options?: ActionOptions): Promise<ActionOutcome>;
  scrollIntoView(options?: ActionOptions): Promise<ActionOutcome>;
  /** Sets a slider's or a spinner's number. */
  setValue(value: number, options?: ActionOptions): Promise<ActionOutcome>;
  dragTo(target: Locator, options?: ActionOptions): Promise<ActionOutcome>;
  /**
   * Turns the real mouse wheel `notches` clicks over its centre: `confirmed`
   * when the tree shows it (elements came, went or moved), else
   * `unverifiable`. A direction other than the four, or notches out of
   * range, rejects with `invalid_request` before anything is looked for.
   */
  scroll(direction: ScrollDirection, options?: ScrollOptions): Promise<ActionOutcome>;
  /** Expands a tree row, an expander or a combo box; waits until it reads `expanded`. */
  expand(options?: ActionOptions): Promise<ActionOutcome>;
  /** Collapses what `expand` expands; waits until it no longer reads `expanded`. */
  collapse(options?: ActionOptions): Promise<ActionOutcome>;
  /**
   * Steps a slider or spin button up by its own action; waits until its
   * number grew. At its maximum: `route` `not_needed`, nothing sent.
   */
  increment(options?: StepOptions): Promise<ActionOutcome>;
  /** Steps it down, as `increment` steps it up. */
  decrement(options?: StepOptions): Promise<ActionOutcome>;
  /**
   * Selects the characters `from` to `to` (`to` excluded, counted from 0) of
   * its text; waits until its selection reads so. `from` after `to` rejects
   * with `invalid_request`.
   */
  selectText(from: number, to: number, options?: ActionOptions): Promise<ActionOutcome>;

  /** How many elements match now (no wait, not strict). */
  count(): Promise<number>;
  /** A Locator for each element that matches now. */
  all(): Promise<Locator[]>;
  node(options?: ActionOptions): Promise<Node>;
  /** What a person reads on it: its label, else its value. */
  text(options?: ActionOptions): Promise<string>;
  value(options?: ActionOptions): Promise<string | null>;
  states(options?: ActionOptions): Promise<State[]>;
  bounds(options?: ActionOptions): Promise<Bounds | null>;
  /** A PNG of the one element, cut from a capture of its window (written to `path` too). */
  screenshot(options?: { path?: string; timeout?: number }): Promise<Buffer>;
  /** Whether the one element shows: now, or with `timeout`, as soon as it does (false after it). */
  isVisible(options?: ActionOptions): Promise<boolean>;
  /** Whether no element shows: now, or with `timeout`, as soon as none does (false after it). */
  isHidden(options?: ActionOptions): Promise<boolean>;
  isEnabled(options?: ActionOptions): Promise<boolean>;
  isChecked(options?: ActionOptions): Promise<boolean>;
  isFocused(options?: ActionOptions): Promise<boolean>;
  /** Whether it reads expanded (a GTK 4 tree row: its expander does). */
  isExpanded(options?: ActionOptions): Promise<boolean>;
  /** Whether it takes text and is not read-only. */
  isEditable(options?: ActionOptions): Promise<boolean>;
}

/** Assertions on a locator, retried on fresh reads; a failure rejects with `assertion_failed`. */
export declare class Expect {
  private constructor();
  /** The opposite assertions. */
  readonly not: Expect;
  toBeVisible(options?: ExpectOptions): Promise<void>;
  toBeHidden(options?: ExpectOptions): Promise<void>;
  toBeEnabled(options?: ExpectOptions): Promise<void>;
  toBeDisabled(options?: ExpectOptions): Promise<void>;
  toBeChecked(options?: ExpectOptions): Promise<void>;
  toBeFocused(options?: ExpectOptions): Promise<void>;
  toBeEditable(options?: ExpectOptions): Promise<void>;
  /**
   * Label, else value, is `text`: a string equals the whole text (whitespace
   * folded, case-sensitive unless `ignoreCase`), as in Playwright; a RegExp
   * is searched.
   */
  toHaveText(text: TextMatch, options?: ExpectTextOptions): Promise<void>;
  /** Label, else value, holds `text` as a part; a RegExp is searched. */
  toContainText(text: TextMatch, options?: ExpectTextOptions): Promise<void>;
  /** The value is `value`, compared as `toHaveText` compares: the whole of it. */
  toHaveValue(value: TextMatch, options?: ExpectTextOptions): Promise<void>;
  toHaveState(state: State, options?: ExpectOptions): Promise<void>;
  toHaveCount(count: number, options?: ExpectOptions): Promise<void>;
}

/** What `tracing.stop({ path })` wrote: the zip, its steps, pictures and size in bytes. */
export interface TraceSummary {
  path: string;
  steps: number;
  pictures: number;
  bytes: number;
}

/**
 * Records every action and `expect` of an app's locators as a step, with the window's
 * snapshot and a capture before and after each (docs/trace.md). `uidrive trace show`
 * prints a trace, or writes it as one HTML page with `--html`.
 */
export declare class Tracing {
  private constructor();
  /** Starts recording; rejects with `invalid_request` if a recording is on already. */
  start(options?: { screenshots?: boolean; snapshots?: boolean; title?: string }): Promise<void>;
  /** Stops recording; with `path`, writes the trace there, else drops it (then resolves to null). */
  stop(options?: { path?: string }): Promise<TraceSummary | null>;
  /** Whether a recording is on. */
  readonly isRecording: boolean;
}

/** A private headless desktop: an X display, a session bus and the accessibility bus. */
export declare class Desktop {
  private constructor();
  /**
   * The X display, as `:3`; on the Wayland backend, the compositor's socket as an absolute path
   * (`env`'s `XDG_RUNTIME_DIR` joined with its `WAYLAND_DISPLAY`, a name).
   */
  readonly display: string;
  /** What an app needs to show up on this desktop, with accessibility on. */
  readonly env: Record<string, string>;
  /** `launch` with this desktop's environment (then `options.env`). */
  launch(argv: string[], options?: LaunchOptions): Promise<App>;
  /** `attach` on this desktop. */
  attach(target: AttachTarget, options?: AttachOptions): Promise<App>;
  /** Ends every process of the desktop. */
  close(): Promise<void>;
  /** The desktop's clipboard: uidrive holds what it sets and gives it to apps that paste. */
  readonly clipboard: Clipboard;
  /** The notifications apps show on this desktop now, oldest first (uidrive is its notification server). */
  notifications(): Promise<Notification[]>;
  /** Waits (`timeout` ms, 10 000 by default) for a notification whose summary, body and app name hold the texts given. */
  waitForNotification(options?: { summary?: string; body?: string; app?: string; timeout?: number }): Promise<Notification>;
  /** The tray's items (uidrive is the StatusNotifierWatcher). */
  tray(): Promise<TrayItem[]>;
}

/** The desktop's clipboard (`desktop.clipboard`); `{ primary: true }`: the primary selection. */
export declare class Clipboard {
  private constructor();
  /** The text on the clipboard, or null when it is empty or holds no text. */
  get(options?: { primary?: boolean }): Promise<string | null>;
  /** Puts `text` on the clipboard. */
  set(text: string, options?: { primary?: boolean }): Promise<void>;
  /** Empties the clipboard, whoever holds it. */
  clear(options?: { primary?: boolean }): Promise<void>;
  /** The image on the clipboard as PNG, when the app holding it offers `image/png`; else null. */
  getImage(options?: { primary?: boolean }): Promise<Buffer | null>;
}

/** A notification an app showed on uidrive's headless desktop. */
export declare class Notification {
  private constructor();
  readonly id: number;
  readonly appName: string;
  readonly summary: string;
  readonly body: string;
  /** Its actions, in order. */
  readonly actions: Array<{ id: string; label: string }>;
  readonly urgency: 'low' | 'normal' | 'critical';
  /** When it was shown, in milliseconds since the epoch (as `Date.now()`). */
  readonly time: number;
  readonly icon: string;
  readonly category: string | null;
  /** Dismisses it, as a person closing it; its app is told. */
  dismiss(): Promise<void>;
  /** Invokes its action `action`: the app gets `ActionInvoked`, then it closes. */
  invoke(action: string): Promise<void>;
}

/** An item of the tray on uidrive's headless desktop. */
export declare class TrayItem {
  private constructor();
  readonly id: string;
  /** Where it is on the bus: `busname/path`. */
  readonly service: string;
  readonly title: string;
  readonly tooltip: string;
  /** `Passive`, `Active` or `NeedsAttention`. */
  readonly status: string;
  readonly hasMenu: boolean;
  /** Activates it, as a click on its icon. */
  activate(): Promise<void>;
  /** Its menu's entries, every depth, a submenu before what it holds. */
  menu(): Promise<TrayMenuItem[]>;
}

/** An entry of a tray item's menu. */
export declare class TrayMenuItem {
  private constructor();
  readonly id: number;
  readonly label: string;
  readonly enabled: boolean;
  readonly separator: boolean;
  readonly checked: boolean;
  /** The labels of the submenus it is in, outermost first. */
  readonly path: string[];
  /** Clicks it (the app gets the menu's `clicked` event). */
  click(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Starting points

/** Launches `argv` (accessibility on) and resolves once its first window shows; or, with `socketEnv`, once it listens on the protocol socket. */
export declare function launch(argv: string[], options?: LaunchOptions): Promise<App>;
/** Connects to an app (or `uidrive serve`) listening on a protocol socket. */
export declare function connect(socketPath: string): Promise<App>;
/** Attaches to a running app by pid or by accessible name. */
export declare function attach(target: AttachTarget, options?: AttachOptions): Promise<App>;
/** Starts a private headless desktop. */
export declare function headless(options?: HeadlessOptions): Promise<Desktop>;
/** Assertions on `locator`; `options.timeout` applies to each. */
export declare function expect(locator: Locator, options?: ExpectOptions): Expect;
/** This module's version. */
export declare function version(): string;
/** Runs the `uidrive` command line in this process (the package's `uidrive` bin); answers its exit status. */
export declare function cliMain(argv: string[], selfCommand: string[]): number;
