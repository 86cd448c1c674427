#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An open file descriptor, as a typed value.
///
/// A thin wrapper in the style of swift-system's `FileDescriptor`: it neither owns nor tracks the descriptor.
/// Whoever receives one owns it until they hand it on, for example to ``DescriptorChannel/init(taking:name:)``,
/// or close it with ``close()``.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  /// The raw C descriptor.
  public let rawValue: CInt

  /// Wraps a raw C descriptor.
  public init(rawValue: CInt) {
    self.rawValue = rawValue
  }

  /// Closes the descriptor.
  ///
  /// Errors are not reported: on Linux the descriptor is released even when close(2) fails (EINTR, EIO), so
  /// retrying could close an unrelated descriptor that reused the number, and there is nothing else to do.
  ///
  /// The corresponding C function is `close`.
  public func close() {
    _ = systemClose(rawValue)
  }
}

/// close(2), under a name that does not collide with the `close()` methods of this module's types.
@inline(__always)
func systemClose(_ descriptor: CInt) -> CInt {
  #if canImport(Glibc)
    Glibc.close(descriptor)
  #elseif canImport(Musl)
    Musl.close(descriptor)
  #else
    Darwin.close(descriptor)
  #endif
}

/// The current thread's errno, and its text.
struct SystemError {
  let number: CInt

  static var current: SystemError { SystemError(number: errno) }

  var message: String { String(cString: strerror(number)) }
}

/// open(2), under a name that does not collide with the `open` functions of this module's types.
@inline(__always)
func systemOpen(_ path: String, _ flags: CInt) -> CInt {
  #if canImport(Glibc)
    Glibc.open(path, flags)
  #elseif canImport(Musl)
    Musl.open(path, flags)
  #else
    Darwin.open(path, flags)
  #endif
}

/// The canonical path of `path` with every symbolic link resolved, or nil when it cannot be resolved.
///
/// The corresponding C function is `realpath`.
func resolvedPath(_ path: String) -> String? {
  guard let resolved = realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}
