import FICCore

#if ColorManagement
import CLcms

/// A LittleCMS context of its own, whose errors are collected instead of printed.
///
/// LittleCMS reports a broken profile through an error handler; the default one is global to
/// the process. Each conversion being built gets a context whose handler records the messages
/// (they become the warnings of ``ColorConverter/make(for:layout:warnings:)``), so a junk profile
/// never reaches stderr, and another user of LittleCMS in the process keeps its own handler.
///
/// `@unchecked Sendable` for the C handle: a context is used to build one conversion, on one
/// thread, then only kept alive by the shared transforms made in it; its messages are locked.
final class LcmsContext: @unchecked Sendable {
    /// The context handle. Valid for this object's lifetime; everything made in it (profiles,
    /// transforms) keeps this object alive.
    let handle: cmsContext
    /// Where the handler puts messages; retained here, reached from C through the context's user data.
    private let sink: LcmsMessages

    /// A new context, or nil when LittleCMS cannot allocate one.
    init?() {
        let sink = LcmsMessages()
        guard let handle = cmsCreateContext(nil, Unmanaged.passUnretained(sink).toOpaque()) else { return nil }
        self.handle = handle
        self.sink = sink
        cmsSetLogErrorHandlerTHR(handle, lcmsRecordError)
    }

    deinit {
        cmsDeleteContext(handle)
    }

    /// The messages recorded so far, emptied.
    func takeMessages() -> [String] {
        sink.messages.withLockedValue { messages in
            defer { messages = [] }
            return messages
        }
    }
}

/// The messages of one context (a few at most: a broken profile can produce many).
private final class LcmsMessages: Sendable {
    let messages = LockedBox<[String]>([])
}

/// The error handler of every context: appends "text (LittleCMS error N)" to its messages.
private let lcmsRecordError: cmsLogErrorHandlerFunction = { context, code, text in
    guard let context, let user = cmsGetContextUserData(context) else { return }
    let sink = Unmanaged<LcmsMessages>.fromOpaque(user).takeUnretainedValue()
    let message = (text.map { String(cString: $0) } ?? "unknown error") + " (LittleCMS error \(code))"
    sink.messages.withLockedValue { messages in
        if messages.count < 8 && !messages.contains(message) { messages.append(message) }
    }
}

/// An open profile; closed when released.
final class LcmsProfile {
    /// The profile handle.
    let handle: cmsHPROFILE
    /// The context the profile was made in, kept alive while the profile is.
    let context: LcmsContext

    private init(handle: cmsHPROFILE, context: LcmsContext) {
        self.handle = handle
        self.context = context
    }

    deinit {
        cmsCloseProfile(handle)
    }

    /// The profile in `bytes`, or nil when LittleCMS cannot read it (its reasons are in the context's messages).
    static func open(_ bytes: [UInt8], in context: LcmsContext) -> LcmsProfile? {
        guard !bytes.isEmpty, bytes.count <= Int(UInt32.max) else { return nil }
        let handle = bytes.withUnsafeBytes { cmsOpenProfileFromMemTHR(context.handle, $0.baseAddress, cmsUInt32Number($0.count)) }
        return handle.map { LcmsProfile(handle: $0, context: context) }
    }

    /// LittleCMS's built-in sRGB profile (the D50-adapted IEC 61966-2-1 primaries and curve).
    static func sRGB(in context: LcmsContext) -> LcmsProfile? {
        cmsCreate_sRGBProfileTHR(context.handle).map { LcmsProfile(handle: $0, context: context) }
    }

    /// A matrix-shaper RGB profile from chromaticities and one tone curve for all three channels.
    static func rgb(_ chromaticities: ColorDescription.Chromaticities, curve: LcmsToneCurve, in context: LcmsContext) -> LcmsProfile? {
        var white = cmsCIExyY(x: chromaticities.whiteX, y: chromaticities.whiteY, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: chromaticities.redX, y: chromaticities.redY, Y: 1),
            Green: cmsCIExyY(x: chromaticities.greenX, y: chromaticities.greenY, Y: 1),
            Blue: cmsCIExyY(x: chromaticities.blueX, y: chromaticities.blueY, Y: 1)
        )
        var curves: [OpaquePointer?] = [curve.handle, curve.handle, curve.handle]
        let handle = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfileTHR(context.handle, &white, &primaries, $0.baseAddress) }
        return handle.map { LcmsProfile(handle: $0, context: context) }
    }

    /// A grey profile with `curve` (D50 white, so that grey stays neutral).
    static func gray(curve: LcmsToneCurve, in context: LcmsContext) -> LcmsProfile? {
        cmsCreateGrayProfileTHR(context.handle, cmsD50_xyY(), curve.handle).map { LcmsProfile(handle: $0, context: context) }
    }

    /// The colour space of the data the profile describes (`cmsSigRgbData`, `cmsSigGrayData`, `cmsSigCmykData`, …).
    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// Whether the profile has a tag.
    func has(_ tag: cmsTagSignature) -> Bool { cmsIsTag(handle, tag) != 0 }

    /// The XYZ value of a tag (a colorant), or nil when it is missing or unreadable.
    func xyz(_ tag: cmsTagSignature) -> cmsCIEXYZ? {
        cmsReadTag(handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
    }

    /// A tone curve tag (owned by the profile: valid while it is open), or nil.
    func toneCurve(_ tag: cmsTagSignature) -> OpaquePointer? {
        cmsReadTag(handle, tag).map { OpaquePointer($0) }
    }
}

/// A tone curve made for a synthesised profile; freed when released.
final class LcmsToneCurve {
    /// The curve handle.
    let handle: OpaquePointer
    /// The context the curve was made in.
    let context: LcmsContext

    private init?(_ handle: OpaquePointer?, context: LcmsContext) {
        guard let handle else { return nil }
        self.handle = handle
        self.context = context
    }

    deinit {
        cmsFreeToneCurve(handle)
    }

    /// An ICC parametric curve (`type` 1…5 of ICC's `para`, as LittleCMS numbers them, with its parameters).
    static func parametric(_ type: Int32, _ parameters: [Double], in context: LcmsContext) -> LcmsToneCurve? {
        LcmsToneCurve(
            parameters.withUnsafeBufferPointer { cmsBuildParametricToneCurve(context.handle, type, $0.baseAddress) }, context: context)
    }

    /// `x` raised to `exponent`.
    static func gamma(_ exponent: Double, in context: LcmsContext) -> LcmsToneCurve? {
        LcmsToneCurve(cmsBuildGamma(context.handle, exponent), context: context)
    }

    /// A curve sampled at evenly spaced points of 0…1 (at least 2).
    static func tabulated(_ values: [Float], in context: LcmsContext) -> LcmsToneCurve? {
        LcmsToneCurve(
            values.withUnsafeBufferPointer { cmsBuildTabulatedToneCurveFloat(context.handle, cmsUInt32Number($0.count), $0.baseAddress) },
            context: context)
    }
}

/// A transform, shared by every thread that converts with it (LittleCMS keeps no per-call
/// state in a transform since 2.3, so one transform may run on several threads at once).
final class LcmsTransform: @unchecked Sendable {
    /// The transform handle.
    let handle: cmsHTRANSFORM
    /// The context the transform was made in, alive as long as the transform.
    let context: LcmsContext

    /// A transform from `source` in `inputFormat` to LittleCMS's sRGB in `outputFormat`, relative
    /// colorimetric, or nil when LittleCMS refuses (its reasons are in the context's messages).
    init?(from source: LcmsProfile, _ inputFormat: cmsUInt32Number, toSRGB outputFormat: cmsUInt32Number, flags: cmsUInt32Number) {
        guard let sRGB = LcmsProfile.sRGB(in: source.context),
            let handle = cmsCreateTransformTHR(
                source.context.handle, source.handle, inputFormat, sRGB.handle, outputFormat,
                cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags)
        else { return nil }
        self.handle = handle
        self.context = source.context
    }

    deinit {
        cmsDeleteTransform(handle)
    }

    /// Converts `count` pixels (in chunks LittleCMS's 32-bit count can take).
    func run(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int, sourceBytes: Int, destinationBytes: Int) {
        var done = 0
        while done < count {
            let chunk = min(count - done, 1 << 28)
            cmsDoTransform(handle, source + done * sourceBytes, destination + done * destinationBytes, cmsUInt32Number(chunk))
            done += chunk
        }
    }
}
#endif
