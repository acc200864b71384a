// A test that never settles (and a timer that keeps the event loop busy).
test("waits forever", () => new Promise(() => setInterval(() => {}, 1000)));
