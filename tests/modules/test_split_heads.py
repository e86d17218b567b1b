"""The projections' head split (``_SplitHeads``): views equal to ``permute(...).unbind(0)`` and a
backward equal to autograd's through them, also when some outputs get no gradient."""

import torch

from allennlp_longent.modules.entity_aware_attention import _SplitHeads


def test_split_heads_matches_permute_unbind_forward_and_backward():
    generator = torch.Generator().manual_seed(0)
    joint = torch.randn(2, 5, 4, 3, 6, generator=generator, dtype=torch.float64)
    weights = [torch.randn(2, 3, 5, 6, generator=generator, dtype=torch.float64)
               for _ in range(4)]
    for used in ([0, 1, 2, 3], [1, 3]):  # outputs 0 and 2 unused: None gradients
        grads = []
        for split in (lambda x: _SplitHeads.apply(x),
                      lambda x: x.permute(2, 0, 3, 1, 4).unbind(0)):
            leaf = joint.clone().requires_grad_()
            outputs = split(leaf)
            assert all(o.shape == (2, 3, 5, 6) for o in outputs)
            sum((outputs[i] * weights[i]).sum() for i in used).backward()
            grads.append(leaf.grad)
            expected = joint.permute(2, 0, 3, 1, 4)
            assert all(torch.equal(o, e) for o, e in zip(outputs, expected))
        assert torch.equal(grads[0], grads[1])
        assert (grads[0][:, :, 0] == 0).all() == (0 not in used)
