#if Tool
import Foundation
import CSDL2

/// Turns SDL's input events into viewer actions: the key bindings, the wheel and the mouse.
enum WindowEvents {
    /// How a mode maps the wheel and keys that differ between modes.
    enum Bindings {
        /// Wheel and arrows scroll; space flings.
        case gallery(rowHeight: Double, pageHeight: Double)
        /// Wheel zooms around the pointer; arrows pan; +/- zoom; 0 fits; 1 is one-to-one.
        case photo(width: Double, height: Double)
    }

    /// Drains SDL's queue (the window's `sdl`). When `scripted`, only closing the window is honoured (the script
    /// drives the viewer); otherwise every event becomes the actions it stands for.
    static func poll(_ sdl: fic_sdl_functions, _ bindings: Bindings, scripted: Bool, dragging: inout Bool) -> [ViewerAction] {
        var actions: [ViewerAction] = []
        var event = SDL_Event()
        while sdl.SDL_PollEvent(&event) != 0 {
            let type = event.type
            if type == SDL_QUIT.rawValue {
                actions.append(.quit)
                continue
            }
            if scripted { continue }
            switch type {
            case SDL_KEYDOWN.rawValue:
                let shift = (UInt32(event.key.keysym.mod) & UInt32(KMOD_SHIFT.rawValue)) != 0
                actions += keyActions(Int(event.key.keysym.sym), shift: shift, bindings)
            case SDL_MOUSEWHEEL.rawValue:
                var x: Int32 = 0, y: Int32 = 0
                _ = sdl.SDL_GetMouseState(&x, &y)
                let clicks = Double(event.wheel.y)
                switch bindings {
                case .gallery(let row, _): actions.append(.scrollBy(-clicks * row / 2))
                case .photo: actions.append(.zoomBy(factor: pow(1.25, clicks), x: Double(x), y: Double(y)))
                }
            case SDL_MOUSEBUTTONDOWN.rawValue where event.button.button == UInt8(SDL_BUTTON_LEFT):
                dragging = true
                actions.append(.dragBegan(x: Double(event.button.x), y: Double(event.button.y)))
            case SDL_MOUSEMOTION.rawValue where dragging:
                actions.append(.dragMoved(x: Double(event.motion.x), y: Double(event.motion.y)))
            case SDL_MOUSEBUTTONUP.rawValue where event.button.button == UInt8(SDL_BUTTON_LEFT) && dragging:
                dragging = false
                actions.append(.dragEnded(x: Double(event.button.x), y: Double(event.button.y)))
            default:
                break
            }
        }
        return actions
    }

    private static func keyActions(_ key: Int, shift: Bool, _ bindings: Bindings) -> [ViewerAction] {
        switch key {
        case Int(SDLK_ESCAPE.rawValue), Int(SDLK_q.rawValue): return [.quit]
        case Int(SDLK_o.rawValue): return [.overlay(nil)]
        case Int(SDLK_r.rawValue): return [.replay]
        default: break
        }
        switch bindings {
        case .gallery(let row, let page):
            switch key {
            case Int(SDLK_DOWN.rawValue): return [.scrollBy(row)]
            case Int(SDLK_UP.rawValue): return [.scrollBy(-row)]
            case Int(SDLK_PAGEDOWN.rawValue): return [.scrollBy(page)]
            case Int(SDLK_PAGEUP.rawValue): return [.scrollBy(-page)]
            case Int(SDLK_HOME.rawValue): return [.scrollTo(0)]
            case Int(SDLK_END.rawValue): return [.scrollTo(.greatestFiniteMagnitude)]
            case Int(SDLK_SPACE.rawValue), Int(SDLK_f.rawValue): return [.fling(shift ? -12_000 : 12_000)]
            case Int(SDLK_c.rawValue): return [.togglePath]
            default: return []
            }
        case .photo(let width, let height):
            let step = 0.1 * min(width, height)
            switch key {
            case Int(SDLK_LEFT.rawValue): return [.panBy(dx: -step, dy: 0)]
            case Int(SDLK_RIGHT.rawValue): return [.panBy(dx: step, dy: 0)]
            case Int(SDLK_UP.rawValue): return [.panBy(dx: 0, dy: -step)]
            case Int(SDLK_DOWN.rawValue): return [.panBy(dx: 0, dy: step)]
            case Int(SDLK_PLUS.rawValue), Int(SDLK_EQUALS.rawValue), Int(SDLK_KP_PLUS.rawValue):
                return [.zoomBy(factor: 1.25, x: width / 2, y: height / 2)]
            case Int(SDLK_MINUS.rawValue), Int(SDLK_KP_MINUS.rawValue):
                return [.zoomBy(factor: 0.8, x: width / 2, y: height / 2)]
            case Int(SDLK_0.rawValue), Int(SDLK_f.rawValue): return [.fit]
            case Int(SDLK_1.rawValue): return [.zoomTo(scale: 1, x: width / 2, y: height / 2)]
            default: return []
            }
        }
    }
}
#endif
