/// The tool's version, shown by `--version` and written into reports.
public enum ConnAuditVersion {
    public static let string = "0.1.0"
}
