extension Array where Element: AnyObject {
    /// `body` with the element at `i`, not retained: for an array its owner holds unchanged (a
    /// `let` of a compiled rule or a runner) for as long as `body` runs, which does not change it.
    @inline(__always) func withElement<T>(_ i: Int, _ body: (Element) -> T) -> T {
        // Loaded as an unmanaged reference (a plain word): an element loaded as itself is
        // retained for the call, however long the array holds it. `body` runs after the
        // buffer is let go: with a call inside the buffer's closure, the array itself is
        // retained for it (a `var` of a class may change during any call).
        let element = withUnsafeBufferPointer { buffer in
            precondition(i >= 0 && i < buffer.count, "index out of range")
            return UnsafeRawPointer(buffer.baseAddress! + i).load(as: Unmanaged<Element>.self)
        }
        return element._withUnsafeGuaranteedRef(body)
    }
}
