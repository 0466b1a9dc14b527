extension JSONWriter {
    /// `"input_errors"`: the inputs that could not be read, each `{"path": …, "reason": …}`, as
    /// the audit's and the timeline's JSON both write them.
    mutating func inputErrors(_ errors: [InputError]) {
        beginArray("input_errors")
        for e in errors {
            beginObject()
            key("path", e.path)
            key("reason", e.reason)
            endObject()
        }
        endArray()
    }
}
