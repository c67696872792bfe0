// The workflows that only the reservations start, through an activity, and the Probe that
// `make run` starts: their registered names and stable IDs, which the tools and tests look
// up.
package contract

const (
	// TelescopeWorkflow is the registered name of Telescope.
	TelescopeWorkflow = "Telescope"
	// ObservatoryWorkflow is the registered name of Observatory.
	ObservatoryWorkflow = "Observatory"
	// ProbeWorkflow is the registered name of Probe.
	ProbeWorkflow = "Probe"
)

// TelescopeWorkflowID is the stable workflow ID of a telescope's lock.
func TelescopeWorkflowID(namespace, name string) string {
	return "telescope/" + namespace + "/" + name
}

// ObservatoryWorkflowID is the stable workflow ID of an observatory's site lock.
func ObservatoryWorkflowID(namespace, name string) string {
	return "observatory/" + namespace + "/" + name
}
