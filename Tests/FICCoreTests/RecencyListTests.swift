import FICHarness
import FICTestSupport
import Testing

@testable import FICCore

/// The one least-recently-used order, against a plain array that keeps keys oldest first.
@Suite struct RecencyListTests {
    @Test func ordersKeysByUseAndSumsTheirCosts() {
        var list = RecencyList<String>()
        list.store("a", cost: 10)
        list.store("b", cost: 20)
        list.store("c", cost: 30)
        #expect(list.oldest?.key == "a" && list.totalCost == 60 && list.count == 3)
        list.touch("a")
        #expect(list.entries.map(\.key) == ["b", "c", "a"])
        list.store("b", cost: 5)  // a new cost, and used now
        #expect(list.entries.map(\.key) == ["c", "a", "b"] && list.totalCost == 45 && list.cost(of: "b") == 5)
        #expect(list.newer(than: "c")?.key == "a" && list.newer(than: "b") == nil)
        #expect(list.remove("a") == 10 && list.remove("a") == nil)
        #expect(list.entries.map(\.key) == ["c", "b"] && list.totalCost == 35)
        list.store("d", cost: 1)  // takes the freed node
        #expect(list.entries.map(\.key) == ["c", "b", "d"])
        list.removeAll()
        #expect(list.oldest == nil && list.count == 0 && list.totalCost == 0)
    }

    /// Random stores, touches and removals over a few keys, each checked against the model.
    @Test func matchesAPlainListUnderRandomUse() {
        var generator = SplitMix64(seed: FuzzSeed.value(for: "RecencyListTests", default: 0x5EC0_1157))
        var list = RecencyList<Int>()
        var model: [(key: Int, cost: Int)] = []
        for _ in 0..<20_000 {
            let key = Int(generator.next() % 24), cost = Int(generator.next() % 100)
            switch generator.next() % 3 {
            case 0:
                list.store(key, cost: cost)
                model.removeAll { $0.key == key }
                model.append((key, cost))
            case 1:
                list.touch(key)
                if let i = model.firstIndex(where: { $0.key == key }) { model.append(model.remove(at: i)) }
            default:
                let removed = list.remove(key)
                let i = model.firstIndex { $0.key == key }
                #expect(removed == i.map { model[$0].cost })
                if let i { model.remove(at: i) }
            }
            #expect(list.count == model.count && list.totalCost == model.reduce(0) { $0 + $1.cost })
            #expect(list.oldest?.key == model.first?.key)
        }
        #expect(list.entries.map(\.key) == model.map(\.key) && list.entries.map(\.cost) == model.map(\.cost))
    }
}
