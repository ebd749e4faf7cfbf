import CFICCore

/// How glibc's `malloc` hands large blocks back to the system.
///
/// By default glibc serves a block of 128 KiB or more with its own mapping, returned to the
/// system when freed, but each such free raises that threshold to the freed block's size (up to
/// 32 MiB), and the heap's trimming threshold with it. A process that decodes large images one
/// after another (libheif's and libde265's planes are tens of MiB each) thus soon serves them
/// from its heap, where freed blocks stay resident and fragment: `fic ingest` of 40 large HEICs
/// peaked at 161 MB against 129 MB with the threshold fixed at 128 KiB, in the same time.
package enum MallocTuning {
    /// Fixes the size from which blocks get a mapping of their own (and are returned to the
    /// system when freed) at `bytes`, which also stops glibc from raising it. Process-wide.
    /// Returns whether glibc accepted it (another allocator may be in use).
    @discardableResult
    package static func fixMappingThreshold(_ bytes: Int) -> Bool {
        bytes > 0 && fic_fix_malloc_mapping_threshold(size_t(bytes)) == 1
    }

    /// The bytes of blocks that have a mapping of their own now (`mallinfo2`'s `hblkhd`).
    package static var mappedBlockBytes: Int {
        Int(fic_malloc_mapped_bytes())
    }
}
