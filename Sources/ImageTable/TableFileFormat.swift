/// Facts of the table file format that tools outside the engine may rely on.
package enum TableFileFormat {
    /// Where the header records the boot the table was last opened for writing under (16 bytes).
    /// A table whose recorded boot is not the running one is read as after a restart of the system.
    package static let bootIdentifierOffset = TableHeader.sessionOffset
    /// The length of the recorded boot identifier.
    package static let bootIdentifierLength = 16
}
