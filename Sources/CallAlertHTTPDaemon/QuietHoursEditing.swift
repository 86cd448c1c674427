import CallAlertControl
import CallAlertDaemon
import CallAlertEngine
import CallAlertHTTP
import CallAlertInputs
import CallAlertText
import CallAlertValues
import Logging

extension DaemonAddOn {
  /// The page's quiet-hours editor over the daemon: the section is checked as the config file's, kept in the
  /// ``QuietHoursFile`` beside the history, and applied by a reload (the daemon reads that file at every
  /// start and reload, so the two never disagree).
  static func quietHoursEditor(_ context: DaemonAddOnContext) -> QuietHoursEditor {
    let file = QuietHoursFile(historyPath: context.configuration.historyPath)
    let region: @Sendable () -> String = { context.currentConfiguration().engine.defaultRegion }
    return QuietHoursEditor(
      file: { file.path }, isInForce: { file.exists },
      check: { text in
        do throws(InputErrors) {
          _ = try ConfigurationFile.parseDoNotDisturb(text: text, file: QuietHoursEditor.textName, region: region())
          return []
        } catch {
          return error.errors
        }
      },
      save: { text in
        do throws(InputErrors) {
          try file.write(text, region: region(), errorsNamed: QuietHoursEditor.textName)
        } catch {
          return .refused(error.errors)
        }
        context.logger.notice("http: quiet hours changed on the page, kept in \(file.path)")
        return await apply(context)
      },
      reset: {
        do throws(InputErrors) {
          try file.remove()
        } catch {
          return .refused(error.errors)
        }
        context.logger.notice("http: quiet hours as in the config file again (\(file.path) removed)")
        return await apply(context)
      })
  }

  /// Reloads the configuration, which reads the quiet-hours file: in force, or why not (a config file that
  /// does not load now keeps the running settings).
  private static func apply(_ context: DaemonAddOnContext) async -> QuietHoursEditor.Outcome {
    if case .failure(let failure) = await context.handle(.reload, "http") {
      return .savedNotApplied(
        "the config file does not load now (\(failure.error)); it applies at the next good reload")
    }
    return .applied
  }
}
