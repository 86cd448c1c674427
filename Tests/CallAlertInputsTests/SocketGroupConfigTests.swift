import CallAlertText
import CallAlertValues
import Testing

/// `socket.group` names the group whose members may use the control socket besides the user.
@Suite("Config: socket.group")
struct SocketGroupConfigTests {
  @Test(arguments: [("root", UInt32(0)), ("\"0\"", 0), ("4242", 4242)])
  func aGroupIsReadByNameOrNumber(written: String, id: UInt32) throws {
    #expect(try parseConfig("socket:\n  group: \(written)\n").socketGroup == id)
  }

  @Test func withoutAGroupNobodyElseIsLetIn() throws {
    #expect(try parseConfig("socket:\n  path: /run/x.sock\n").socketGroup == nil)
  }

  @Test func anUnknownGroupIsAnErrorWithItsPlace() {
    let errors = configErrors("socket:\n  group: no-such-group-here\n")
    #expect(
      errors.map(\.description) == [
        "/etc/callalert/config.yaml:2:10: socket.group: no group named 'no-such-group-here' on this system; "
          + "name an existing group or its number"
      ])
  }

  /// The group's bits are what `socket.group` is for; the bits for everyone else still need `allow_others`.
  @Test func aGroupAllowsTheGroupsBitsButNotOthers() throws {
    #expect(try parseConfig("socket:\n  group: root\n  mode: \"0660\"\n").socketMode == 0o660)
    let errors = configErrors("socket:\n  group: root\n  mode: \"0666\"\n")
    #expect(errors.count == 1)
    #expect(errors.first?.description.contains("mode 0666 lets other users connect") == true)
    #expect(try parseConfig("socket:\n  group: root\n  mode: \"0666\"\n  allow_others: true\n").socketMode == 0o666)
  }
}
