// Package contract is what crosses from the outside to the workflows: the registered workflow
// type names, the stable workflow IDs, the signals the watcher and the activities send with
// their payloads, the workflows' inputs, the options the watcher starts them with, and the
// search attributes. The watcher, the tools and the tests import it instead of the workflows,
// so they carry no workflow code and none of the activities' dependencies. It depends on no
// package of this module but the API types, and nothing here dials.
//
// Every name and JSON field here is in histories already: a renamed one no longer matches
// what a running workflow or a recorded history holds.
package contract
