"""Per-token perplexity from summed log-likelihoods (Ji et al. 2017, §5.1)."""

import math

import torch
from allennlp.training.metrics import Metric


@Metric.register("token_perplexity")
class TokenPerplexity(Metric):
    """``exp(-sum(log p) / number of tokens)`` over everything seen since the last reset.

    Unlike AllenNLP's ``Perplexity`` (an average of per-batch losses) it weights every token
    equally, which is what corpus perplexity means when batches differ in length.
    """

    def __init__(self) -> None:
        self.reset()

    def __call__(self, log_likelihood: torch.Tensor, num_tokens: torch.Tensor) -> None:  # type: ignore[override]
        log_likelihood, num_tokens = self.detach_tensors(log_likelihood, num_tokens)
        self._log_likelihood += float(log_likelihood.sum())
        self._tokens += int(num_tokens.sum())

    def get_metric(self, reset: bool = False) -> float:
        value = math.exp(-self._log_likelihood / self._tokens) if self._tokens else 0.0
        if reset:
            self.reset()
        return value

    def reset(self) -> None:
        self._log_likelihood = 0.0
        self._tokens = 0
