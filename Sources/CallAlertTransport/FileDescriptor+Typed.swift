import SystemPackage

extension FileDescriptor {
  /// read(2) into `buffer`, retried on EINTR, with the error typed.
  ///
  /// swift-system's `read(into:retryOnInterrupt:)` throws untyped; every error it throws is an `Errno`.
  func readRetryingInterrupts(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    do {
      return try read(into: buffer, retryOnInterrupt: true)
    } catch {
      throw error as? Errno ?? .ioError
    }
  }

  /// write(2) of `buffer`, retried on EINTR, with the error typed: how many bytes went out.
  func writeRetryingInterrupts(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
    do {
      return try write(buffer, retryOnInterrupt: true)
    } catch {
      throw error as? Errno ?? .ioError
    }
  }
}
