// Why Pods are not Ready, as a capture whose wait timed out says it: on a real
// `kubectl get pods -A -o json` from the lab, where a Deployment asks for an image
// the lab cannot run (busybox) beside 075's Ready nginx Pods.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { notReadyText, parsePodList, selects } from '../../src/capture/kubectl/topology.ts';

const pods = parsePodList(readFileSync(new URL('../fixtures/samples/kubectl/pods-lab-cannot-run-image.json', import.meta.url), 'utf8'));
const probe = pods.find((p) => p.labels.app === 'probe')!;

test("a waiting container's reason, message and image are read from the Pod's status", () => {
  assert.equal(probe.ready, false);
  assert.deepEqual(probe.waiting, [
    {
      container: 'busybox',
      image: 'busybox:1.36',
      reason: 'LabCannotRunImage',
      message: "the shice lab runs nginx images only (as Debian's nginx), not busybox:1.36",
    },
  ]);
  assert.ok(
    pods.filter((p) => p.labels.app === 'web').every((p) => p.ready && p.waiting.length === 0),
    'the Ready Pods wait for nothing',
  );
});

test('the line names the Pod, the reason, the message and the image, and what an experiment does about an image it cannot pull or run', () => {
  const text = notReadyText(pods, (p) => p.namespace === 'default' && selects({ app: 'probe' }, p.labels));
  assert.equal(
    text,
    `pod default/${probe.name}: container busybox waiting (LabCannotRunImage: the shice lab runs nginx images only (as Debian's nginx), not busybox:1.36), image busybox:1.36. ` +
      'Where no registry answers, an experiment runs an image it cannot pull through a declared substitute (imageSubstitutes, as 074 and 075 do; docs/authoring.md)',
  );
});

test('Pods that are all Ready by the time they are read: said so, nothing invented', () => {
  assert.equal(
    notReadyText(pods, (p) => p.labels.app === 'web'),
    'every Pod of it is Ready now',
  );
});
