"""A two-layer nn.LSTM returning its final state (h_n, c_n) of every layer."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.LSTM(input_size, hidden_size, num_layers=2)

    def forward(self, x: torch.Tensor):
        _, (h_n, c_n) = self.rnn(x)
        return h_n, c_n


seq_len = 6
batch_size = 8
input_size = 20
hidden_size = 24
TAIL = {"seq_len": 3, "batch_size": 5, "input_size": 19, "hidden_size": 21}


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
