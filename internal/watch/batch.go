// Batching the watcher's signals: while one signal to a workflow is in flight, the
// changes for that workflow gather and go together in the next, so a burst of changes costs
// one round trip per workflow rather than one per change, and a lone change goes at once.
package watch

import (
	"context"
	"sync"
	"time"
)

// busyGap is the least time from one signal to a workflow to the next while its changes come
// in a burst (a batch of more than one). Temporal buffers the signals that reach a workflow
// while its task runs and fails the task past 100: one round trip per signal sent a shard
// twenty or thirty a second, whose tasks of a few seconds under a burst of thousands failed
// again and again (see workflows.paintSliceLimit). A lone change still goes at once.
const busyGap = 250 * time.Millisecond

// batcher groups the watcher's signals to one workflow, group-commit style: while a signal to
// a workflow is in flight, the changes for it wait, and then go together in the next one. In
// a burst a shard gets one signal per round trip or per busyGap, whichever is longer,
// whatever the number of changes; alone, a change goes at once.
type batcher[K comparable, C any] struct {
	mu    sync.Mutex
	open  map[K]*batch[C]     // filling, not yet sent
	slots map[K]chan struct{} // one signal in flight per key
}

type batch[C any] struct {
	changes []C
	done    chan struct{}
	err     error
}

func newBatcher[K comparable, C any]() *batcher[K, C] {
	return &batcher[K, C]{open: map[K]*batch[C]{}, slots: map[K]chan struct{}{}}
}

// send adds change to the next batch for key and returns once that batch is sent, with
// flush's answer. The first change of a batch sends it, in its own context, as soon as the
// key's previous batch is done; a batch cut short by that context fails for every change in
// it, and the watcher's queue sends each again.
func (b *batcher[K, C]) send(ctx context.Context, key K, change C, flush func(context.Context, []C) error) error {
	b.mu.Lock()
	bt, joined := b.open[key]
	if !joined {
		bt = &batch[C]{done: make(chan struct{})}
		b.open[key] = bt
	}
	bt.changes = append(bt.changes, change)
	slot := b.slots[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		b.slots[key] = slot
	}
	b.mu.Unlock()

	if joined {
		select {
		case <-bt.done:
			return bt.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		b.seal(key, bt)
		bt.err = ctx.Err()
		close(bt.done)
		return bt.err
	}
	b.seal(key, bt)
	began := time.Now()
	bt.err = flush(ctx, bt.changes)
	close(bt.done)
	if wait := busyGap - time.Since(began); len(bt.changes) > 1 && wait > 0 {
		// The next batch gathers meanwhile.
		time.AfterFunc(wait, func() { <-slot })
	} else {
		<-slot
	}
	return bt.err
}

// seal closes bt to new changes: the next change for key starts a new batch.
func (b *batcher[K, C]) seal(key K, bt *batch[C]) {
	b.mu.Lock()
	if b.open[key] == bt {
		delete(b.open, key)
	}
	b.mu.Unlock()
}
