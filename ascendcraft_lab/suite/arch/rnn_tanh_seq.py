"""An Elman nn.RNN (tanh) over a sequence: the output of every step and the last hidden state."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)

    def forward(self, x: torch.Tensor):
        out, h_n = self.rnn(x)
        return out, h_n


seq_len = 10
batch_size = 8
input_size = 24
hidden_size = 32
TAIL = {"seq_len": 3, "batch_size": 5, "input_size": 19, "hidden_size": 21}


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
