/// The login form, asked only when `http.token_file` is set: the token it holds, once per browser session.
struct LoginPage {
  let csrf: String
  /// Whether the last token given was wrong.
  let failed: Bool

  var document: String {
    var body = ""
    if failed { body += "<p class=\"error\" role=\"alert\">That is not the token. Try again.</p>" }
    body += "<p>This daemon asks for its token (the first line of <code>http.token_file</code>).</p>"
    body += "<form method=\"post\" action=\"\(PagePaths.login)\">"
    body += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    body += "<label for=\"token\">Token</label>"
    body += "<input type=\"password\" id=\"token\" name=\"token\" autocomplete=\"current-password\" required>"
    body += "<p><button type=\"submit\" class=\"button\" id=\"log-in\">Log in</button></p></form>"
    return PageLayout.document(title: "Log in - CallAlert", section: nil, heading: "Log in", body: body)
  }
}
