// The workflows that only the reservations start, through an activity, and the Probe that
// `make run` starts: their registered names and stable IDs, which the tools and tests look
// up.
package contract

const (
	// TelescopeLockWorkflow is the registered name of TelescopeLock.
	TelescopeLockWorkflow = "TelescopeLock"
	// SiteTurnsWorkflow is the registered name of SiteTurns.
	SiteTurnsWorkflow = "SiteTurns"
	// ProbeWorkflow is the registered name of Probe.
	ProbeWorkflow = "Probe"
)

// TelescopeLockID is the stable workflow ID of a telescope's lock.
func TelescopeLockID(namespace, name string) string {
	return "telescope/" + namespace + "/" + name
}

// SiteTurnsID is the stable workflow ID of an observatory's site lock.
func SiteTurnsID(namespace, name string) string {
	return "observatory/" + namespace + "/" + name
}
