// Package indi is the observatory's INDI client: INDI 1.7 (XML over TCP, port 7624) to the
// indiserver of each telescope and observatory.
//
// A Client asks for every property once it connects and keeps them in a live store that many
// goroutines may read (Property, Properties, Devices) and subscribe to (Subscribe). Changes
// are target states (SetSwitch, SetNumber, SetText and the device operations such as Connect,
// SetDomeParked, Cool): the property is read first and nothing is sent when it is already
// there; otherwise the change is checked against the property's permission and switch rule,
// sent, and awaited, with Busy as moving, Ok or Idle as settled and Alert as a failure that
// carries the driver's message. Every wait takes a context, and a lost connection fails every
// pending wait with an error that names the server.
//
// The wire reader is a streaming tokenizer of our own with hard limits, so a broken or hostile
// stream costs bounded memory and ends the connection with a clear error. BLOBs are never
// enabled. Package inditest runs real indiserver simulators and a scriptable fake for tests.
package indi
