/// The family policy on the cache's CPU lane, for callers on Swift's cooperative pool.
extension ImageCache {
    /// ``storeImages(from:for:family:releasingPages:)`` run on one of the cache's CPU threads,
    /// in priority order with the decodes of requests, so that bulk imports neither block the
    /// cooperative pool nor get ahead of images wanted on screen. Work already queued runs even
    /// if the calling task is cancelled.
    ///
    /// - Throws: what ``storeImages(from:for:family:releasingPages:)`` throws, or `.closed` once
    ///   the cache is closed.
    @discardableResult
    public func storeImages(
        from source: SourceImage, for entity: some ImageEntity, family: String? = nil, releasingPages: Bool = false,
        priority: RequestPriority
    ) async throws -> StoredImages {
        // The queued work holds the policy, not the cache.
        let policy = self.policy
        return try await lanes.run(at: priority) {
            try policy.storeImages(from: source, for: entity, family: family, releasingPages: releasingPages)
        }
    }
}
