"""A two-layer nn.RNN with the ReLU nonlinearity: the output of every step."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size, num_layers=2, nonlinearity="relu")

    def forward(self, x: torch.Tensor):
        out, _ = self.rnn(x)
        return out


seq_len = 7
batch_size = 8
input_size = 16
hidden_size = 24
TAIL = {"seq_len": 3, "batch_size": 5, "input_size": 19, "hidden_size": 21}


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
