/// Where the page lives on the daemon's HTTP server: under `/page`, apart from the API's `/v1` (the page is
/// judged by ``PageMiddleware``, with a session cookie and form tokens, where the API asks a bearer token);
/// `/` sends a browser to it.
public enum PagePaths {
  /// The live view: boards, ringing calls, missed calls, do-not-disturb.
  public static let live = "/page"
  /// The live view's sections alone, which the script fetches when an event arrives.
  public static let livePart = "/page/live.part"
  /// The call history.
  public static let history = "/page/history"
  /// Quiet hours and do-not-disturb.
  public static let quiet = "/page/quiet"
  /// The patterns, drawn as timelines.
  public static let patterns = "/page/patterns"
  /// A pattern file checked (field `text`): the patterns page with the text and its diagnostics.
  public static let patternCheck = "/page/patterns/check"
  /// The diagnostics alone, which the script fetches as one types.
  public static let patternCheckPart = "/page/patterns/check.part"
  /// Writes the pattern file (field `text`) and puts it on every board.
  public static let patternFlash = "/page/actions/flash"
  /// Each board's flash, alone, which the script fetches while one goes.
  public static let flashPart = "/page/patterns/flash.part"
  /// How the boards, the sources of calls and the history stand.
  public static let setup = "/page/setup"
  /// The login form (only when a token is configured).
  public static let login = "/page/login"
  /// The style sheet.
  public static let style = "/page/style.css"
  /// The script.
  public static let script = "/page/app.js"
  /// The engine's events for the script (Server-Sent Events, as `/v1/events`).
  public static let events = "/page/events"
  /// Stops one ringing call (field `call`).
  public static let stop = "/page/actions/stop"
  /// Stops every ringing call.
  public static let stopAll = "/page/actions/stop-all"
  /// Acknowledges the missed calls.
  public static let acknowledge = "/page/actions/ack"
  /// Switches do-not-disturb (field `mode`) or silent mode (field `silent`).
  public static let doNotDisturb = "/page/actions/dnd"

  /// The quiet-hours section checked (field `text`): the quiet hours page with the text and its errors.
  public static let quietCheck = "/page/quiet/check"
  /// The quiet-hours section's errors alone, which the script fetches as one types.
  public static let quietCheckPart = "/page/quiet/check.part"
  /// Saves the quiet-hours section (field `text`) and applies it.
  public static let quietSave = "/page/actions/quiet-hours"
  /// Removes the page's quiet-hours section: the config file's applies again.
  public static let quietReset = "/page/actions/quiet-hours-reset"

  /// Rings a board with a pattern as a test call (fields `board`, `pattern`).
  public static let testRing = "/page/actions/test-ring"

  /// Runs `callalert doctor`'s checks: the setup page with their findings.
  public static let doctor = "/page/actions/doctor"

  /// Accepts a phone's pending KDE Connect pairing request (field `device`), as `callalert kdeconnect pair`.
  public static let pair = "/page/actions/pair"

  /// The pages an action may send the browser back to (field `back`); anything else goes to the live view.
  static let returnable = [live, history, history + "?missed=1", quiet, setup]

  /// Whether a path is the page's (or `/`, which sends a browser to it).
  public static func owns(_ path: String) -> Bool { path == "/" || path == live || path.hasPrefix(live + "/") }
}
