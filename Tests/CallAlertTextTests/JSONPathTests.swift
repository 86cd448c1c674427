import CallAlertText
import Testing

@Suite struct JSONPathTests {
  @Test(arguments: [
    ("id", [JSONPath.Component.key("id")]),
    ("data.call.id", [.key("data"), .key("call"), .key("id")]),
    ("items[0].id", [.key("items"), .index(0), .key("id")]),
    ("aps.thread-id", [.key("aps"), .key("thread-id")]),
    ("[2]", [.index(2)]),
    ("a[1][2]", [.key("a"), .index(1), .index(2)]),
    (#"meta["x.y"].id"#, [.key("meta"), .key("x.y"), .key("id")]),
    (#"["a b"]"#, [.key("a b")]),
  ])
  func pathsParse(text: String, components: [JSONPath.Component]) throws {
    let path = try #require(JSONPath(text))
    #expect(path.components == components)
    #expect(JSONPath(path.description) == path)
  }

  @Test(arguments: [
    ("data.call.id", "data.call.id"), ("items[0].id", "items[0].id"), (#"meta["x.y"]"#, #"meta["x.y"]"#),
    (#"["plain"]"#, "plain"), (#"a["b"]"#, "a.b"), (#"["a[0]"]"#, #"["a[0]"]"#),
  ])
  func descriptionsAreTheShortestForm(text: String, description: String) throws {
    #expect(try #require(JSONPath(text)).description == description)
  }

  @Test(arguments: ["", ".", "a.", ".a", "a..b", "a[", "a[]", "a[x]", "a[-1]", "a.[0]", "a[0]b", #"a["x"#, "a]"])
  func invalidPathsAreRefused(text: String) {
    #expect(JSONPath(text) == nil)
  }
}
