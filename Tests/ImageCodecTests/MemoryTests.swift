import Foundation
@testable import ImageCodec
import Testing

/// Where decoders take their memory from, what they say they need beforehand, and the budget
/// shared by decodes in flight.
@Suite struct MemoryTests {
    /// A 2560×1440 progressive JPEG made with cjpeg (nil without cjpeg), in a folder to remove.
    static func largeProgressive() throws -> (path: String, folder: String)? {
        let folder = try TestImageBuilder.temporaryFolder()
        guard let path = try TestImageBuilder.largeJPEG(from: "photos/retina.jpg", width: 2560, height: 1440, progressive: true, in: folder)
        else {
            try? FileManager.default.removeItem(atPath: folder)
            return nil
        }
        return (path, folder)
    }

    @Test func libjpegCoefficientsComeFromMappedPagesAndAreGivenBack() throws {
        guard let (path, folder) = try Self.largeProgressive() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try ImageBytes(contentsOf: path)
        let estimate = try ImageDecoder.estimatedMemory(bytes)
        try bytes.withUnsafeBytes { buffer in
            let decompressor = try JPEGDecompressor(strict: true)
            decompressor.setInput(buffer)
            let header = try #require(try decompressor.readHeader())
            #expect(header.raw.progressive != 0)
            _ = try decompressor.configure(scaleDenominator: 1, header: header)
            #expect(try decompressor.start() == .done)
            // The whole coefficient array (2560×1440 at 4:2:0: 86,400 blocks of 128 bytes) is mapped.
            let coefficients = Int(header.raw.coefficient_bytes)
            #expect(coefficients >= 2560 * 1440 * 3 / 2 / 64 * 128)
            #expect(decompressor.peakMappedBytes >= coefficients)
            #expect(estimate.workingBytes >= decompressor.peakMappedBytes)
        }
        // Decoding the same file at 1/8 from its first scans gives back all it mapped.
        let image = try ImageDecoder.decode(bytes, options: DecodingOptions(targetSize: PixelSize(width: 320, height: 180)))
        #expect(image.scaleDenominator == 8 && image.width == 320)
    }

    @Test func progressiveThumbnailFromFirstScansMatchesTheFullDecode() throws {
        guard let (path, folder) = try Self.largeProgressive() else { return }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let full = try ImageDecoder.decode(contentsOf: path)
        let eighth = try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(targetSize: PixelSize(width: 320, height: 180)))
        #expect(eighth.width == 320 && eighth.height == 180)
        // At 1/8 each pixel is its 8×8 block's mean: compare with the block means of the full decode.
        var squared = 0.0
        for y in 0..<eighth.height {
            for x in 0..<eighth.width {
                for c in 0..<3 {
                    var sum = 0
                    for dy in 0..<8 {
                        for dx in 0..<8 {
                            sum += Int(
                                full.baseAddress.load(
                                    fromByteOffset: (y * 8 + dy) * full.bytesPerRow + (x * 8 + dx) * 4 + c, as: UInt8.self))
                        }
                    }
                    let d = Double(
                        Int(eighth.baseAddress.load(fromByteOffset: y * eighth.bytesPerRow + x * 4 + c, as: UInt8.self)) - (sum + 32) / 64)
                    squared += d * d
                }
            }
        }
        let psnr = 10 * log10(255 * 255 / max(squared / Double(320 * 180 * 3), 1e-9))
        #expect(psnr >= 35, "PSNR \(psnr) dB")
    }

    @Test func decodedBitmapsAndFileBytesAreMappedPages() throws {
        let path = TestData.path("photos/hubble.jpg")
        let bytes = try ImageBytes(contentsOf: path)
        #expect(bytes.count == 527_940 && bytes.path == path)
        let image = try ImageDecoder.decode(bytes)
        #expect(Int(bitPattern: image.baseAddress) % 4096 == 0, "a large bitmap starts on a page of its own")
        let pooled = LargeBufferPool.pooledBytes
        #expect(pooled <= LargeBufferPool.maximumPooledBytes)
        let refused = try #require(throws: ImageCacheError.self) { try ImageBytes(contentsOf: path, maximumByteCount: 1000) }
        #expect(refused.code == .overMemoryBudget && refused.path == path)
        let directory = try #require(throws: ImageCacheError.self) { try ImageBytes(contentsOf: TestData.root) }
        #expect(directory.code == .io && directory.errno == .isDirectory)
    }

    @Test func theBufferPoolStaysBounded() throws {
        var kept: [LargeBufferPool.Storage] = []
        for size in [1 << 20, 3 << 20, 9 << 20, 17 << 20, 5 << 20, 200 << 10] {
            kept.append(try LargeBufferPool.allocate(byteCount: size, zeroed: true))
        }
        let first = kept[0].base.assumingMemoryBound(to: UInt8.self)
        #expect(first[0] == 0 && first[(1 << 20) - 1] == 0)
        kept.removeAll()
        #expect(LargeBufferPool.pooledBytes <= LargeBufferPool.maximumPooledBytes)
        let reused = try LargeBufferPool.allocate(byteCount: 5 << 20, zeroed: true)
        let p = reused.base.assumingMemoryBound(to: UInt8.self)
        #expect(p[0] == 0 && p[(5 << 20) - 1] == 0, "reused memory is zeroed when asked")
    }

    @Test(arguments: [
        ("photos/hubble.jpg", 1000, 872), ("jpeg/coffee-progressive.jpg", 600, 400), ("png/astronaut-interlaced.png", 256, 256),
        ("png/astronaut-rgba.png", 256, 256), ("webp/astronaut-lossless-alpha.webp", 256, 256), ("webp/astronaut-lossy.webp", 256, 256)
    ])
    func estimatesComeFromTheHeaderAlone(file: String, width: Int, height: Int) throws {
        let bytes = try TestData.bytes(file)
        let full = try ImageDecoder.estimatedMemory(bytes)
        #expect(full.info.width == width && full.info.height == height)
        #expect(full.outputBytes >= width * height * 4)
        let small = try ImageDecoder.estimatedMemory(bytes, options: DecodingOptions(targetSize: PixelSize(width: 32, height: 32)))
        #expect(small.outputBytes < full.outputBytes)
        let fromFile = try ImageDecoder.estimatedMemory(ofFileAt: TestData.path(file))
        #expect(fromFile.encodedBytes == bytes.count)
        #expect(fromFile.totalBytes == full.totalBytes + bytes.count)
        // Nothing but the header is needed: the first 2 KiB (JPEGs here have small headers) will do.
        if file.hasSuffix(".png") || file.hasSuffix(".webp") || file.contains("coffee") {
            #expect(try ImageDecoder.estimatedMemory(Array(bytes.prefix(2048))) == full)
        }
        if file.contains("progressive") {
            let baseline = try ImageDecoder.estimatedMemory(try TestData.bytes("jpeg/coffee-420.jpg"))
            #expect(full.workingBytes > baseline.workingBytes + 600 * 400 * 3 / 2 * 2, "a progressive JPEG needs its coefficients")
        }
        if file.contains("lossless") {
            #expect(full.workingBytes >= width * height * 4, "libwebp's lossless decoder holds the whole ARGB image")
        }
    }

    @Test func estimatesOfHostileOrShortHeaders() throws {
        let truncated = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.estimatedMemory(Array(try TestData.bytes("photos/coffee.jpg").prefix(100)))
        }
        #expect(truncated.code == .truncated)
        #expect(throws: ImageCacheError.self) { try ImageDecoder.estimatedMemory(try TestData.bytes("bad/text.jpg")) }
        let bomb = try ImageDecoder.estimatedMemory(try TestData.bytes("bad/bomb-100000x100000.png"))
        #expect(bomb.outputBytes >= 100_000 * 100_000 * 4, "a bomb says what it would need, so a budget refuses it")
        let empty = try #require(throws: ImageCacheError.self) {
            try ImageDecoder.estimatedMemory(ofFileAt: TestData.path("bad/empty.jpg"))
        }
        #expect(empty.code == .emptyInput && empty.path != nil)
    }
}

/// The budget shared by decodes in flight.
@Suite struct DecodeMemoryBudgetTests {
    @Test func theDefaultIsAShareOfTheMachineBetweenTheSmallSettingAndTwoGiB() {
        #expect(DecodeMemoryBudget.smallMemoryCapacity == 96 << 20)
        #expect(DecodeMemoryBudget.defaultCapacity(memoryBytes: 512 << 20) == 96 << 20, "a small machine keeps the small setting")
        #expect(DecodeMemoryBudget.defaultCapacity(memoryBytes: 8 << 30) == 512 << 20)
        #expect(DecodeMemoryBudget.defaultCapacity(memoryBytes: 256 << 30) == 2 << 30)
        #expect(DecodeMemoryBudget().capacity == DecodeMemoryBudget.defaultCapacity)
        #expect(DecodeMemoryBudget().capacity >= DecodeMemoryBudget.smallMemoryCapacity)
    }

    @Test func grantsInOrderAndWaitsWhileSpent() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let a = try await budget.reserve(60)
        #expect(budget.tryReserve(50) == nil)
        let order = LockedBox<[Int]>([])
        async let b: Void = {
            let r = try await budget.reserve(50); order.withLockedValue { $0.append(50) }; r.release()
        }()
        while budget.waitingCount < 1 { await Task.yield() }
        async let c: Void = {
            let r = try await budget.reserve(10); order.withLockedValue { $0.append(10) }; r.release()
        }()
        while budget.waitingCount < 2 { await Task.yield() }
        // 10 would fit now, but 50 asked first: first come, first served.
        #expect(order.withLockedValue { $0 }.isEmpty)
        a.release()
        _ = try await (b, c)
        #expect(order.withLockedValue { $0 } == [50, 10])
        #expect(budget.reservedBytes == 0)
        #expect(budget.peakReservedBytes <= 100)
    }

    @Test func anOversizedReservationRunsAlone() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let big = try await budget.reserve(500)
        #expect(budget.reservedBytes == 500)
        #expect(budget.tryReserve(1) == nil)
        big.release()
        big.release()  // once only
        #expect(budget.reservedBytes == 0)
        let small = try #require(budget.tryReserve(1))
        async let second: DecodeMemoryBudget.Reservation = budget.reserve(500)
        while budget.waitingCount < 1 { await Task.yield() }
        small.release()
        let granted = try await second
        #expect(granted.bytes == 500)
    }

    @Test func cancellingAWaiterReservesNothingAndLetsOthersIn() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let held = try await budget.reserve(90)
        let waiter = Task { try await budget.reserve(50) }
        while budget.waitingCount < 1 { await Task.yield() }
        async let small: DecodeMemoryBudget.Reservation = budget.reserve(5)
        while budget.waitingCount < 2 { await Task.yield() }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }
        // The 5 bytes queued behind the cancelled 50 are granted now.
        let five = try await small
        #expect(budget.reservedBytes == 95)
        five.release()
        held.release()
        #expect(budget.reservedBytes == 0 && budget.waitingCount == 0)
    }

    @Test func manyTasksNeverExceedTheBudget() async throws {
        let budget = DecodeMemoryBudget(capacity: 1000)
        let over = LockedBox(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask {
                    let reservation = try await budget.reserve(50 + (i * 37) % 400)
                    if budget.reservedBytes > 1000 { over.withLockedValue { $0 = true } }
                    await Task.yield()
                    reservation.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(!over.withLockedValue { $0 })
        #expect(budget.peakReservedBytes <= 1000 && budget.reservedBytes == 0)
    }
}
