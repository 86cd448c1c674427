/// The frame every page of the web page shares: the document head (the one style sheet and script, both
/// served by the daemon), a skip link, the site's navigation with the current section marked, and `<main>`.
struct PageLayout {
  /// The sections of the page, in the navigation's order.
  enum Section: String, CaseIterable, Sendable {
    case live, history, quiet, patterns, setup

    /// Its path.
    var path: String {
      switch self {
      case .live: PagePaths.live
      case .history: PagePaths.history
      case .quiet: PagePaths.quiet
      case .patterns: PagePaths.patterns
      case .setup: PagePaths.setup
      }
    }

    /// Its name in the navigation.
    var name: String {
      switch self {
      case .live: "Live"
      case .history: "History"
      case .quiet: "Quiet hours"
      case .patterns: "Patterns"
      case .setup: "Setup"
      }
    }
  }

  /// The whole document: `title` in the tab (the live section changes it while a call rings), `body` inside
  /// `<main>` after its heading.
  static func document(title: String, section: Section?, heading: String, body: String) -> String {
    var navigation = ""
    if let section {
      navigation = "<nav aria-label=\"Sections\"><ul>"
      for item in Section.allCases {
        let current = item == section ? " aria-current=\"page\"" : ""
        navigation += "<li><a href=\"\(item.path)\"\(current)>\(item.name)</a></li>"
      }
      navigation += "</ul></nav>"
    }
    return """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(HTML.escape(title))</title>
      <link rel="stylesheet" href="\(PagePaths.style)">
      <script src="\(PagePaths.script)" defer></script>
      </head>
      <body>
      <a class="skip" href="#main">Skip to content</a>
      <header><p class="brand">CallAlert</p>\(navigation)</header>
      <main id="main">
      <h1>\(HTML.escape(heading))</h1>
      \(body)
      </main>
      </body>
      </html>

      """
  }

  /// A form that posts one action: the session's form token, hidden fields, and a button.
  static func actionForm(
    _ action: String, csrf: String, fields: [(String, String)] = [], button: String, id: String,
    style: String = "button", label: String? = nil
  ) -> String {
    var form = "<form method=\"post\" action=\"\(action)\">"
    form += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    for (name, value) in fields {
      form += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
    }
    // `label`: what a screen reader says when the visible word alone (one "Acknowledge" per row) is ambiguous.
    let named = label.map { " aria-label=\"\(HTML.escape($0))\"" } ?? ""
    form +=
      "<button type=\"submit\" id=\"\(HTML.escape(id))\" class=\"\(style)\"\(named)>\(HTML.escape(button))</button>"
    return form + "</form>"
  }
}
