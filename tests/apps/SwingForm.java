import java.awt.BorderLayout;
import java.awt.GridLayout;
import javax.swing.DefaultListModel;
import javax.swing.JButton;
import javax.swing.JComboBox;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JList;
import javax.swing.JMenu;
import javax.swing.JMenuBar;
import javax.swing.JMenuItem;
import javax.swing.JOptionPane;
import javax.swing.JPanel;
import javax.swing.JScrollPane;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;

/** A Swing window for uidrive's tests: a combo box, a list, a text field,
 * and a button (and a File > Ask... menu item) that asks a question in a
 * modal dialog; a label reads what was chosen and answered. */
public class SwingForm {
    public static void main(String[] args) {
        SwingUtilities.invokeLater(SwingForm::show);
    }

    private static void show() {
        JFrame frame = new JFrame("Swing form");
        frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
        JLabel status = new JLabel("nothing yet");
        JComboBox<String> colour = new JComboBox<>(new String[] {"Red", "Green", "Blue"});
        colour.getAccessibleContext().setAccessibleName("Colour");
        colour.addActionListener(e -> status.setText("colour " + colour.getSelectedItem()));
        DefaultListModel<String> fruit = new DefaultListModel<>();
        for (String name : new String[] {"Apple", "Banana", "Cherry", "Damson"}) {
            fruit.addElement(name);
        }
        JList<String> list = new JList<>(fruit);
        list.getAccessibleContext().setAccessibleName("Fruit");
        list.addListSelectionListener(e -> status.setText("fruit " + list.getSelectedValue()));
        JTextField name = new JTextField(12);
        name.getAccessibleContext().setAccessibleName("Name");
        JButton ask = new JButton("Ask");
        java.awt.event.ActionListener question = e -> {
            int answer = JOptionPane.showConfirmDialog(frame, "Go on?", "Question",
                    JOptionPane.OK_CANCEL_OPTION);
            status.setText(answer == JOptionPane.OK_OPTION ? "answered OK" : "answered Cancel");
        };
        ask.addActionListener(question);
        JMenuBar bar = new JMenuBar();
        JMenu file = new JMenu("File");
        JMenuItem askItem = new JMenuItem("Ask...");
        askItem.addActionListener(question);
        file.add(askItem);
        bar.add(file);
        frame.setJMenuBar(bar);
        JPanel form = new JPanel(new GridLayout(0, 1, 4, 4));
        form.add(colour);
        form.add(name);
        form.add(ask);
        form.add(status);
        frame.getContentPane().add(form, BorderLayout.NORTH);
        frame.getContentPane().add(new JScrollPane(list), BorderLayout.CENTER);
        frame.setSize(320, 320);
        frame.setVisible(true);
    }
}
