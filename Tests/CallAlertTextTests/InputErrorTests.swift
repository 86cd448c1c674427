import CallAlertText
import Testing

@Test func inputErrorsNameThePlace() {
  #expect(
    InputError(location: "callalert.yaml:3:9", field: "cap", message: "must be 1 to 30 s").description
      == "callalert.yaml:3:9: cap: must be 1 to 30 s")
}
