"""nn.Embedding: a (batch, sequence) int64 index tensor -> rows of the Model's weight."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.embedding(tokens)


batch_size = 16
seq_len = 128
num_embeddings = 32000
embedding_dim = 512
TAIL = {"batch_size": 3, "seq_len": 37, "num_embeddings": 1003, "embedding_dim": 1001}


def get_inputs():
    return [torch.randint(0, num_embeddings, (batch_size, seq_len))]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
