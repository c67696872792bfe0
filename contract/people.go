// The people side as the watcher starts and signals it: the shards (ID people/<shard>) the
// watcher signals with every Person change, and each Person's own workflow (ID
// person/<name>), which the shards start and signal.
package contract

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
)

const (
	// PersonWorkflow is the registered name of Person.
	PersonWorkflow = "Person"
	// PersonChanged is the signal a shard sends a Person's workflow; its payload is a
	// PersonChange.
	PersonChanged = "person-changed"

	// PeopleShardWorkflow is the registered name of PeopleShard.
	PeopleShardWorkflow = "PeopleShard"
	// PeopleChanged is the signal the watcher sends a shard; its payload is a []PersonChange.
	PeopleChanged = "people-changed"
	// PeopleShards is how many shards the Persons are spread over: enough for the status
	// writes of a burst to run side by side, few enough that each shard's batches are big.
	PeopleShards = 8
)

// WhyResync is the watcher's word (PersonChange.Why) for a look that no change asked for: its
// first list of every Person after a start, or its periodic resync.
const WhyResync = "resync"

// PersonID is the stable workflow ID of a Person's lifecycle.
func PersonID(name string) string { return "person/" + name }

// PeopleShardID is the stable workflow ID of a shard.
func PeopleShardID(shard int) string { return "people/" + strconv.Itoa(shard) }

// ShardOf is the shard of a Person: the same name always lands in the same shard.
func ShardOf(name string) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % PeopleShards)
}

// PersonChange is what the watcher saw. The workflow reads the Person again anyway; the
// fields make the history readable in the Temporal UI.
type PersonChange struct {
	// Name is the Person's; a shard's signal carries many Persons' changes.
	Name        string `json:"name,omitempty"`
	UID         string `json:"uid,omitempty"`
	Generation  int64  `json:"generation,omitempty"`
	CheckAvatar string `json:"checkAvatar,omitempty"`
	Deleted     bool   `json:"deleted,omitempty"`
	// Why is the watcher's word for the change: added, updated, deleted, resync, baker.
	Why string `json:"why,omitempty"`
}

// PersonInput starts (or continues) a Person's workflow. Every run begins with a pass, so a
// continued run needs nothing else: the pass answers what was pending and re-arms the timer.
type PersonInput struct {
	Name string
}

// PeopleInput starts (or continues) a shard; Pending holds the changes a run received but
// did not answer before it continued as new, Waiting those it painted and had not handed on
// yet, waiting since WaitingSince.
type PeopleInput struct {
	Shard        int
	Pending      []PersonChange `json:",omitempty"`
	Waiting      []PersonChange `json:",omitempty"`
	WaitingSince time.Time      `json:",omitzero"`
}

// PeopleShardWords are a people shard's words.
func PeopleShardWords(shard int) Words {
	return Words{
		Summary: fmt.Sprintf("People shard %d of %d: paints Persons in bursts, then hands each on to person/<name>", shard, PeopleShards),
		Details: "Answers each batch of the watcher's signals in one workflow task: initials and inline pictures are " +
			"painted here, everything else goes to the Person's own workflow at once. Every Person in this shard:\n\n" +
			"```\nkubectl get people -o wide\n```",
	}
}

// PeopleStartOptions start a people shard, as the watcher does.
func PeopleStartOptions(queue string, shard int) client.StartWorkflowOptions {
	w := PeopleShardWords(shard)
	return client.StartWorkflowOptions{ID: PeopleShardID(shard), TaskQueue: queue, StaticSummary: w.Summary, StaticDetails: w.Details}
}
