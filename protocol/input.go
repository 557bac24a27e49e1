package protocol

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// InputItemType tags an InputItem.
type InputItemType string

// The kinds of user input.
const (
	InputText       InputItemType = "text"
	InputImage      InputItemType = "image"
	InputLocalImage InputItemType = "local_image"
	// InputSkill asks for a listed skill by its SKILL.md path (Name is the skill's name): the
	// engine adds the skill's file for the model, as for a `$name` mention.
	InputSkill InputItemType = "skill"
)

// InputItem is one piece of user input. Text uses Text; image uses ImageURL (a URL or data
// URI); local_image uses Path; skill uses Name and Path.
type InputItem struct {
	Type     InputItemType
	Text     string
	ImageURL string
	Path     string
	Name     string
}

// TextInput is a shorthand for a text item.
func TextInput(text string) InputItem { return InputItem{Type: InputText, Text: text} }

// LocalImageInputs attaches image files by path; Codex puts them before the message's text.
func LocalImageInputs(paths []string) []InputItem {
	items := make([]InputItem, 0, len(paths)+1)
	for _, p := range paths {
		items = append(items, InputItem{Type: InputLocalImage, Path: p})
	}
	return items
}

type textInputWire struct {
	Text         string            `json:"text"`
	TextElements []json.RawMessage `json:"text_elements"`
}

// MarshalJSON writes {"type":...} with the variant's fields.
func (i InputItem) MarshalJSON() ([]byte, error) {
	switch i.Type {
	case InputText, "":
		return marshalTagged("type", string(InputText), textInputWire{Text: i.Text, TextElements: []json.RawMessage{}})
	case InputImage:
		return marshalTagged("type", string(i.Type), struct {
			ImageURL string `json:"image_url"`
		}{i.ImageURL})
	case InputLocalImage:
		return marshalTagged("type", string(i.Type), struct {
			Path string `json:"path"`
		}{i.Path})
	case InputSkill:
		return marshalTagged("type", string(i.Type), struct {
			Name string `json:"name"`
			Path string `json:"path"`
		}{i.Name, i.Path})
	}
	return nil, fmt.Errorf("unknown input item type %q", i.Type)
}

// UnmarshalJSON reads any of the four variants.
func (i *InputItem) UnmarshalJSON(data []byte) error {
	tag, err := readTag(data, "type")
	if err != nil {
		return fmt.Errorf("input item: %w", err)
	}
	var w struct {
		Text     *string `json:"text"`
		ImageURL *string `json:"image_url"`
		Path     *string `json:"path"`
		Name     *string `json:"name"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out := InputItem{Type: InputItemType(tag)}
	switch out.Type {
	case InputText:
		if w.Text == nil {
			return fmt.Errorf("input item text: missing field `text`")
		}
		out.Text = *w.Text
	case InputImage:
		if w.ImageURL == nil {
			return fmt.Errorf("input item image: missing field `image_url`")
		}
		out.ImageURL = *w.ImageURL
	case InputLocalImage:
		if w.Path == nil {
			return fmt.Errorf("input item local_image: missing field `path`")
		}
		out.Path = *w.Path
	case InputSkill:
		if w.Name == nil || w.Path == nil {
			return fmt.Errorf("input item skill: missing field `name` or `path`")
		}
		out.Name, out.Path = *w.Name, *w.Path
	default:
		return &UnknownVariantError{Enum: "InputItem", Variant: tag}
	}
	*i = out
	return nil
}

// ContentItemType tags a ContentItem.
type ContentItemType string

// The content kinds of a message.
const (
	ContentInputText  ContentItemType = "input_text"
	ContentInputImage ContentItemType = "input_image"
	ContentOutputText ContentItemType = "output_text"
)

// ContentItem is one part of a message's content (Responses API shape).
type ContentItem struct {
	Type     ContentItemType
	Text     string
	ImageURL string
	// Detail is the optional image detail ("auto", "low", "high", "original").
	Detail string
}

// MarshalJSON writes the Responses API shape.
func (c ContentItem) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

// UnmarshalJSON reads a content item.
func (c *ContentItem) UnmarshalJSON(data []byte) error {
	w, tag, ok := decodeContentFast(data)
	if !ok {
		var err error
		if tag, err = readTag(data, "type"); err != nil {
			return fmt.Errorf("content item: %w", err)
		}
		w = contentWire{}
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
	}
	switch t := ContentItemType(tag); t {
	case ContentInputText, ContentOutputText:
		*c = ContentItem{Type: t, Text: w.Text}
	case ContentInputImage:
		*c = ContentItem{Type: t, ImageURL: w.ImageURL, Detail: w.Detail}
	default:
		return &UnknownVariantError{Enum: "ContentItem", Variant: tag}
	}
	return nil
}

// FileChangeKind tags a FileChange.
type FileChangeKind string

// The kinds of file change.
const (
	FileAdd    FileChangeKind = "add"
	FileDelete FileChangeKind = "delete"
	FileUpdate FileChangeKind = "update"
)

// FileChange is one file's part of a patch. Content is used by add (and delete, which
// carries the removed content); UnifiedDiff and MovePath by update.
type FileChange struct {
	Kind        FileChangeKind
	Content     string
	UnifiedDiff string
	MovePath    *string
}

// MarshalJSON writes {"type":"add","content":...} and friends.
func (f FileChange) MarshalJSON() ([]byte, error) {
	switch f.Kind {
	case FileAdd:
		return marshalTagged("type", string(f.Kind), struct {
			Content string `json:"content"`
		}{f.Content})
	case FileDelete:
		return marshalTagged("type", string(f.Kind), struct {
			Content string `json:"content"`
		}{f.Content})
	case FileUpdate:
		return marshalTagged("type", string(f.Kind), struct {
			UnifiedDiff string  `json:"unified_diff"`
			MovePath    *string `json:"move_path"`
		}{f.UnifiedDiff, f.MovePath})
	}
	return nil, fmt.Errorf("unknown file change kind %q", f.Kind)
}

// UnmarshalJSON reads the tagged form and the old externally tagged one
// ({"add":{"content":...}}, "delete").
func (f *FileChange) UnmarshalJSON(data []byte) error {
	var w struct {
		Type        string  `json:"type"`
		Content     string  `json:"content"`
		UnifiedDiff string  `json:"unified_diff"`
		MovePath    *string `json:"move_path"`
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		w.Type = s
	} else {
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		if w.Type == "" {
			var ext map[string]json.RawMessage
			if err := json.Unmarshal(data, &ext); err != nil {
				return err
			}
			if len(ext) != 1 {
				return fmt.Errorf("file change: missing field `type`")
			}
			for k, v := range ext {
				w.Type = k
				if err := json.Unmarshal(v, &w); err != nil {
					return fmt.Errorf("file change %s: %w", k, err)
				}
				w.Type = k
			}
		}
	}
	switch k := FileChangeKind(w.Type); k {
	case FileAdd, FileDelete:
		*f = FileChange{Kind: k, Content: w.Content}
	case FileUpdate:
		*f = FileChange{Kind: k, UnifiedDiff: w.UnifiedDiff, MovePath: w.MovePath}
	default:
		return &UnknownVariantError{Enum: "FileChange", Variant: w.Type}
	}
	return nil
}

// MaxUserInputChars is the most characters (Unicode code points) of text one user turn may
// carry; Codex 0.169 refuses more ("Input exceeds the maximum length of 1048576 characters.").
const MaxUserInputChars = 1 << 20

// UserInputChars counts the characters of the text items, as MaxUserInputChars measures them.
func UserInputChars(items []InputItem) int {
	n := 0
	for _, it := range items {
		if it.Type == InputText {
			n += utf8.RuneCountInString(it.Text)
		}
	}
	return n
}

// InputTooLargeError is a user turn over MaxUserInputChars.
type InputTooLargeError struct{ Actual int }

func (e *InputTooLargeError) Error() string {
	return fmt.Sprintf("Input exceeds the maximum length of %d characters.", MaxUserInputChars)
}

// CheckUserInputSize returns an *InputTooLargeError for a turn over MaxUserInputChars.
func CheckUserInputSize(items []InputItem) error {
	if n := UserInputChars(items); n > MaxUserInputChars {
		return &InputTooLargeError{Actual: n}
	}
	return nil
}
