import CallAlertInputs
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
}
