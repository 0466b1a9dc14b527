// The app lifecycle of a simulated device: scene phases, and the closes they owe.

extension Device {
    // MARK: - App lifecycle

    func wsScene(_ t: Int) {
        ws.sceneAt = never
        switch ws.sceneTarget {
        case .active:
            sceneLine(t, "active")
            ws.scene = .active
            if ws.initialScene {
                ws.initialScene = false
            } else {
                ws.connectAt = t + rng.range(5, 80)
                ws.attempts = 0
            }
            ws.sceneAt = t + rng.gap(mean: 90_000, min: 20_000, max: 900_000)
            ws.sceneTarget = .inactive
        case .inactive, .background:
            if ws.scene != .active {
                // inactive → background: the connection was already closed on the way.
                sceneLine(t, "background")
                ws.scene = .background
                ws.sceneAt = t + rng.range(2_000, 120_000)
                ws.sceneTarget = .active
                return
            }
            let busy =
                !ws.script.isEmpty || ws.forcedTimeoutAfter >= 0 || ws.pendingPingFault != nil
                || ws.deferredAt != never || ws.extraPing || ws.timeoutCloseAt != never
                || t < ws.judgeUntil
                || (ws.awaiting && t + 40 >= ws.deadline)
            if busy {
                ws.sceneAt = t + rng.range(50, 500)
                return
            }
            let background = rng.chance(0.3)
            if background && ws.live && ws.connected && !ws.awaiting
                && fault(.backgroundWithoutClose)
            {
                sceneLine(t, "background")
                injected(.backgroundWithoutClose)
                ws.scene = .background
                ws.pingAt = never
                ws.messageAt = never
                ws.incidentAt = never
                ws.deferred = .lateBackground
                ws.deferredGen = ws.gen
                ws.deferredAt = t + 1_000 + rng.range(1, 2_000)
                ws.sceneAt = ws.deferredAt + rng.range(1_000, 60_000)
                ws.sceneTarget = .active
                return
            }
            sceneLine(t, background ? "background" : "inactive")
            ws.scene = background ? .background : .inactive
            if ws.live {
                // The client closes the live generation; an attempt still connecting is cancelled
                // with it (its open or failure must not end the generation before the close).
                ws.openAt = never
                ws.failAt = never
                ws.deferred = .scene(background: background)
                ws.deferredGen = ws.gen
                ws.deferredAt = t + rng.range(0, 30)
                ws.pingAt = never
                ws.pongAt = never
                ws.pingErrorAt = never
                ws.incidentAt = never
            } else {
                ws.reconnectAt = never
                ws.connectAt = never
                ws.attempts = 0
            }
            if background {
                ws.sceneAt = t + rng.range(2_000, 120_000)
                ws.sceneTarget = .active
            } else if rng.chance(0.6) {
                ws.sceneAt = t + rng.range(200, 3_000)
                ws.sceneTarget = .active
            } else {
                ws.sceneAt = t + rng.range(100, 1_500)
                ws.sceneTarget = .background
            }
        }
    }

    func sceneLine(_ t: Int, _ phase: StaticString) {
        begin(t, "app.scene\",\"phase\":\"")
        sink.put(phase)
        sink.put("\"")
        end(t)
    }
}
