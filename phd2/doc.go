// Package phd2 is the runner's client of PHD2's event server: newline-delimited JSON over TCP
// (port 4400 for PHD2's first instance), how the runner drives the guider in a Guider's pod.
//
// PHD2 sends events, one JSON object per line with an "Event" member, and answers JSON-RPC 2.0
// method calls on the same connection. On connect it greets every client with Version, the
// events that describe its state, and AppState last; after that it sends no AppState again, so
// a client follows the state from the events (GuideStep means Guiding, LoopingExposuresStopped
// Stopped, and so on). A Client keeps that state, PHD2's version and its last Alert.
//
// PHD2 reads one request line at a time and discards whatever else arrived with it, so a
// Client sends one call at a time and waits for its answer before the next. PHD2's refusal of
// a call is an *RPCError carrying PHD2's own message; a lost connection fails every call with
// a *ConnError naming the server. Every line read is bounded (Limits.MaxLine), so a broken or
// hostile stream costs bounded memory and ends the connection with a clear error. Package
// phd2test is a fake event server for tests: PHD2 itself is a GUI program no test can run.
package phd2
