// Package prop holds INDI's values: a Property (a named vector of numbers, texts, switches,
// lights or BLOBs on one device), its Elements, its state, permission and switch rule, and
// INDI's way of writing numbers. It is plain data with no I/O, so the API types and pure rules
// in kube use it without the client that dials; package indi reads and writes these values
// over the wire.
package prop
