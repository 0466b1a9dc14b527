/// A source's names as every output shows them: through ``SecretShapes``. A `src` or `session`
/// that holds a secret `log.no-secrets` flags is keyed by a hash already; one that holds only a
/// secret of the wider detector stays its own source and is shown with the secret hidden.
extension SourceKey {
    /// `src` as shown (a file standing for the source is its path, shown as it is).
    public var shownSrc: String { srcIsFile ? src : SecretShapes.text(src) }

    /// `session` as shown.
    public var shownSession: String? { session.map(SecretShapes.text) }
}
