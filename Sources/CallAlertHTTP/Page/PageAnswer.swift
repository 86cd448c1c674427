internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// The page's answers: a document, a redirect after a form (303, so a reload does not post it again), and a
/// problem as a page a person can read, with a way back.
enum PageAnswer {
  static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    body(text, type: "text/html; charset=utf-8", status: status)
  }

  static func body(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = type
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

  static func redirect(to path: String) -> Response {
    var headers = HTTPFields()
    headers[.location] = path
    return Response(status: .seeOther, headers: headers)
  }

  /// A problem as a page: its title, what went wrong, and a link to the live view.
  static func problem(_ problem: ProblemDocument) -> Response {
    var body = "<p class=\"error\" role=\"alert\">\(HTML.escape(problem.detail))</p>"
    if let field = problem.field { body += "<p>Field: <code>\(HTML.escape(field))</code></p>" }
    body += "<p><a href=\"\(PagePaths.live)\">Back to the live view</a></p>"
    let document = PageLayout.document(
      title: "\(problem.title) - CallAlert", section: nil, heading: problem.title, body: body)
    var response = html(document, status: HTTPResponse.Status(code: problem.status))
    for (name, value) in problem.headers {
      if let field = HTTPField.Name(name) { response.headers[field] = value }
    }
    return response
  }
}
