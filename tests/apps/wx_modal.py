#!/usr/bin/env python3
"""A wxPython (wxGTK 3) window whose button (and File > Ask... menu item)
runs wx.MessageBox, a modal dialog in a nested loop; a Choice to select
and a field to type into. The label reads what was answered or chosen."""
import wx


class Frame(wx.Frame):
    def __init__(self):
        super().__init__(None, title="Wx modal test")
        menu = wx.Menu()
        ask_item = menu.Append(wx.ID_ANY, "Ask...")
        bar = wx.MenuBar()
        bar.Append(menu, "File")
        self.SetMenuBar(bar)
        self.Bind(wx.EVT_MENU, self.on_ask, ask_item)
        panel = wx.Panel(self)
        sizer = wx.BoxSizer(wx.VERTICAL)
        ask = wx.Button(panel, label="Ask")
        self.label = wx.StaticText(panel, label="not asked")
        self.choice = wx.Choice(panel, choices=["Red", "Green", "Blue"])
        self.choice.SetSelection(0)
        self.choice.Bind(wx.EVT_CHOICE, self.on_choice)
        self.text = wx.TextCtrl(panel)
        ask.Bind(wx.EVT_BUTTON, self.on_ask)
        for widget in (ask, self.label, self.choice, self.text):
            sizer.Add(widget, 0, wx.ALL, 4)
        panel.SetSizer(sizer)

    def on_ask(self, _event):
        answer = wx.MessageBox("Go on?", "Question", wx.OK | wx.CANCEL, self)
        self.label.SetLabel("answered OK" if answer == wx.OK else "answered Cancel")

    def on_choice(self, _event):
        self.label.SetLabel("chose " + self.choice.GetStringSelection())


app = wx.App()
Frame().Show()
app.MainLoop()
