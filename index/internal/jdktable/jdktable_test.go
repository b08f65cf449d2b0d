package jdktable

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConvert(t *testing.T) {
	in := `Compiled from "Map.java"
public interface java.util.Map$Entry<K, V> {
  public abstract K getKey();
  public static <K extends java.lang.Comparable<? super K>, V> java.util.Comparator<java.util.Map$Entry<K, V>> comparingByKey();
}
Compiled from "ArrayList.java"
public class java.util.ArrayList<E> extends java.util.AbstractList<E> implements java.util.List<E>, java.io.Serializable {
  public static final int X;
  public java.util.ArrayList(int);
  public void trimToSize() throws java.io.IOException;
  public <T> T[] toArray(T[]);
  public static <E> java.util.List<E> of(E...);
  public default void forEach(java.util.function.BiConsumer<? super K, ? super V>);
}
`
	want := Header + "\n" + strings.Join([]string{
		"T\tinterface\tjava.util.Map.Entry\tK, V\t\t",
		"M\ta\tgetKey\t\tK\t",
		"M\ts\tcomparingByKey\tK, V\tjava.util.Comparator<java.util.Map.Entry<K, V>>\t",
		"T\tclass\tjava.util.ArrayList\tE\tjava.util.AbstractList<E>\tjava.util.List<E> & java.io.Serializable",
		"M\t-\ttrimToSize\t\tvoid\t",
		"M\t-\ttoArray\tT\tT[]\tT[]",
		"M\tsv\tof\tE\tjava.util.List<E>\tE...",
		"M\t-\tforEach\t\tvoid\tjava.util.function.BiConsumer<? super K, ? super V>",
	}, "\n") + "\n"
	got, err := Convert([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Convert([]byte("public interface\n")); err == nil {
		t.Error("a line javap never prints converted without an error")
	}
}
