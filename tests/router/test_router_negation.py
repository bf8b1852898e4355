"""A negated request rules out the tool that changes the world it names (trigger_router's
NEGATORS and NEGATIVE_IMPERATIVE): "don't send it yet" showed send_message, "mesaj atma"
send_message, "dosyayı silme" delete_file. What only looks negated keeps its tool."""

from __future__ import annotations

import pytest

from tests.router.routing import shown

NEGATED = [
    ("en", "don't run any code", "run_python"),
    ("en", "don't send it yet", "send_message"),
    ("en", "DON'T SEND IT YET", "send_message"),
    ("en", "dont send that message", "send_message"),
    ("en", "please do not commit anything yet", "git_commit"),
    ("en", "never delete my old notes", "delete_file"),
    ("en", "don't remind me about that", "reminder_add"),
    ("en", "don't save that", "memory_save"),
    ("tr", "mesaj atma", "send_message"),
    ("tr", "MESAJ ATMA", "send_message"),
    ("tr", "mesajı gönderme lütfen", "send_message"),
    ("tr", "MESAJI GÖNDERME", "send_message"),
    ("tr", "mesaji gonderme", "send_message"),
    ("tr", "sakın mesaj atmayın", "send_message"),
    ("tr", "dosyayı silme", "delete_file"),
    ("tr", "DOSYAYI SİLME", "delete_file"),
    ("tr", "dosyayi silme", "delete_file"),
    ("tr", "kod çalıştırma", "run_python"),
    ("tr", "kod calistirma", "run_python"),
    ("tr", "takvime ekleme", "calendar_add"),
    ("tr", "bunu kaydetme", "memory_save"),
    ("tr", "commit atma henüz", "git_commit"),
    ("tr", "bana hatırlatmayın", "reminder_add"),
    # the verb or what it names further on in the negated clause, by trigger or cue
    ("en", "no need to remind me, I've got it", "reminder_add"),
    ("en", "NO NEED TO REMIND ME", "reminder_add"),
    ("en", "don't bother saving that", "memory_save"),
    ("en", "please don't put that on my calendar", "calendar_add"),
    ("en", "you don't need to text him", "send_message"),
    ("en", "don't worry about reminding me", "reminder_add"),
    ("en", "do not bother with a reminder for that", "reminder_add"),
    ("tr", "hatırlatmana gerek yok", "reminder_add"),
    ("tr", "HATIRLATMANA GEREK YOK", "reminder_add"),
    ("tr", "takvime eklemene gerek yok", "calendar_add"),
    ("tr", "bunu kaydetmenize gerek yok", "memory_save"),
    ("tr", "Ali'ye mesaj göndermeye gerek yok", "send_message"),
    ("tr", "hatırlatma gerek yok", "reminder_add"),
    ("tr", "cuma toplantısını iptal etme", "calendar_delete"),
    ("tr", "hatırlatma yapma şimdilik", "reminder_add"),
    ("tr", "hatırlatma kurma", "reminder_add"),
    ("tr", "HATIRLATMA KURMAYIN LÜTFEN", "reminder_add"),
    ("tr", "yarın için hatırlatma kurmana gerek yok", "reminder_add"),
    # a Turkish clause before another: its last verb too
    ("tr", "kaydetmene gerek yok, kaan'a mesaj at", "memory_save"),
    ("tr", "KAYDETMENE GEREK YOK, KAAN'A MESAJ AT", "memory_save"),
    ("tr", "mesaj atma, sadece hatırlat yarın 9'da", "send_message"),
    ("tr", "dosyayı silme, arşive taşı", "delete_file"),
    ("tr", "toplantıyı iptal etme, saatini 3'e al", "calendar_delete"),
    ("tr", "takvime ekleme, sadece not al", "calendar_add"),
    ("tr", "kaydetme, ben aklımda tutarım", "memory_save"),
    ("en", "don't send it but save it to my notes", "send_message"),
    ("en", "don't just delete it, archive it", "delete_file"),
    ("en", "DON'T TEXT HIM SO LATE", "send_message"),  # "so" before no trigger
    ("en", "no need to save it so i'll remember myself", "memory_save"),  # "so" before "i"
    ("en", "NO NEED TO REMIND ME SO I WILL REMEMBER ON MY OWN", "memory_save"),
    ("en", "if you don't hear back, don't text him again", "send_message"),
    # what the speaker will do themself, after the negation, asks for nothing either
    ("en", "no need to save that, i'll just remember it", "memory_save"),
    ("en", "NO NEED TO SAVE THAT, I'LL JUST REMEMBER IT", "memory_save"),
    ("en", "NO NEED TO SAVE THAT SO I'LL JUST REMEMBER IT", "memory_save"),
    ("en", "don't save it, i'll remember it myself", "memory_save"),
    ("en", "no need to note that down, i will remember", "memory_save"),
    ("en", "no need to remind me, i'll just set an alarm on my phone", "reminder_add"),
    ("en", "DON'T SEND ANYTHING, I'LL WRITE TO HIM MYSELF", "send_message"),
    # "you" in the speaker's own clause is no hand-over ("I'll need you to …" is one)
    ("en", "don't send it yet, I'll tell you when", "send_message"),
    ("en", "no need to save that, I'll remind you later", "reminder_add"),
    ("en", "NO NEED TO ADD IT TO THE CALENDAR, I'LL TEXT YOU THE TIME", "send_message"),
    ("en", "don't send anything, we'll write to her ourselves", "send_message"),
    # and a Turkish one, "ben" or "kendim" to a first-person verb
    ("tr", "kaydetme, ben hatırlarım", "memory_save"),
    ("tr", "KAYDETME, BEN HATIRLARIM", "memory_save"),
    ("tr", "bunu kaydetme, kendim hatırlarım", "memory_save"),
    ("tr", "mesaj atma, ben söylerim", "send_message"),
    ("tr", "takvime ekleme, kendim eklerim", "calendar_add"),
    ("tr", "dosyayı silme, ben silerim sonra", "delete_file"),
    ("tr", "MESAJ GÖNDERME, BEN KENDİM GÖNDERİRİM", "send_message"),
    ("tr", "dosyayı silme, ben kendim taşırım", "move_file"),
    ("tr", "no need to save it, ben hatırlarım", "memory_save"),
    # a Turkish verb in a negative form anywhere is no trigger of a tool that changes the world
    ("tr", "raporu hiç silmedim, bu sabah da duruyordu", "delete_file"),
    ("tr", "BU DOSYAYI KİMSE SİLMEYECEK, MERAK ETME", "delete_file"),
    ("tr", "hatırlamıyorum hangi gün gitmiştik dişçiye", "memory_save"),
    ("tr", "hatirlamiyorum hangi gun gitmistik disciye", "memory_save"),
    # a condition asks for nothing (unpunctuated, "if you don't hear from me by 6 text kaan"
    # loses send_message: the safer error)
    ("en", "if you don't need to send anything else, we're done, thanks", "send_message"),
    ("en", "if you don't remember, never mind, I'll check myself", "memory_save"),
]


@pytest.mark.parametrize(("language", "message", "tool"), NEGATED)
def test_a_negated_request_does_not_show_its_tool(language: str, message: str, tool: str) -> None:
    """Not by its trigger, its cues, a learned vote, nor as a sibling filler."""
    assert tool not in shown(message, language)


@pytest.mark.parametrize(("language", "message", "tool"), [
    ("en", "don't forget to send the report to Kaan", "send_message"),
    ("en", "ping me at 8 so I don't forget the bins", "reminder_add"),
    ("en", "I don't know how, can you delete old.txt for me", "delete_file"),
    ("en", "I don't save passwords in the browser, so remember my wifi code is 4417",
     "memory_save"),  # a statement, not an imperative
    ("en", "we never delete invoices by hand but delete invoice_old.pdf now", "delete_file"),
    ("tr", "silme işlemini yap: eski.txt dosyasını sil", "delete_file"),
    ("tr", "notlar.txt için yazma izni varsa içine yaz", "write_file"),
    ("tr", "yarın 09:00 kargo hatırlatma", "reminder_add"),  # the noun: a reminder
    ("tr", "yarın 9'a hatırlatma kur", "reminder_add"),
    ("tr", "hatırlatma kurmayı unutma", "reminder_add"),
    ("tr", "Kaan'a mesaj atmayı unutma", "send_message"),
    ("tr", "Elif'e yolla: ilacı ben alıyorum, merak etme", "send_message"),
    ("tr", "cmt 11 kuaför ekle takvime", "calendar_add"),  # -me of the dative, no verb
    ("tr", "bi mesaj at anneme", "send_message"),
    # A final verbal noun (an event's title) after the request's own clause is no negation.
    ("tr", "takvime ekle: cuma 14:00 bütçe planlama", "calendar_add"),
    ("tr", "cuma 14:00 bütçe toplantısı ekle, konu: planlama", "calendar_add"),
    ("tr", "yarın saat 10'a bir toplantı ekler misin: sprint planlama", "calendar_add"),
    ("en", "don't send it to Ali. Send it to Kaan", "send_message"),
    ("en", "don't text him, just remind me at 6 to call him", "reminder_add"),
    ("en", "no need to save it, just remind me at 5", "reminder_add"),
    ("en", "no need to text him, i'll just call. remind me at 6 to call him", "reminder_add"),
    ("en", "don't delete it, i'll move it, save a note that it's in Archive", "memory_save"),
    # after the negation, what the speaker will have the assistant do
    ("en", "no need to call him, I'll need you to text him that I'm late", "send_message"),
    ("en", "DON'T DELETE IT, I'LL WANT YOU TO MOVE IT TO THE ARCHIVE FOLDER", "move_file"),
    ("en", "don't save that, I'll have you send it to kaan", "send_message"),
    ("en", "don't delete notes.txt, I'll need you to write the summary into it", "write_file"),
    ("en", "no need to email, put it in my calendar for friday 3pm", "calendar_add"),
    ("en", "don't forget to add the dentist to my calendar", "calendar_add"),
    ("tr", "hatırlatmaya gerek var mı bilmiyorum, yarın 9'da hatırlat", "reminder_add"),
    ("tr", "iptal etmeden önce Elif'e mesaj at", "send_message"),
    ("tr", "kaydetmene gerek yok, kaan'a mesaj at", "send_message"),
    ("tr", "kaydetme, ben hatırlarım ama kaan'a mesaj at", "send_message"),
    ("tr", "kaydetme, ben söyleyince kaydet", "memory_save"),
    ("tr", "mesaj atma, ben senin mail atmanı istiyorum", "send_message"),
    ("tr", "kaydet bunu, ben unuturum", "memory_save"),
    ("tr", "ben hatırlamam, sen kaydet", "memory_save"),
    ("tr", "mesaj atma, sadece hatırlat yarın 9'da", "reminder_add"),
    ("tr", "dosyayı silme, arşive taşı", "move_file"),
    ("tr", "takvime ekleme, sadece not al", "memory_save"),
    ("tr", "yarın için hatırlatma, saat 9", "reminder_add"),  # the noun, in its own clause
    # no negative verb form: a verbal noun, an infinitive
    ("tr", "eski.txt dosyasını silmemiz lazım", "delete_file"),
    ("tr", "notlar.txt'yi silmek istiyorum", "delete_file"),
    ("tr", "Kaan'a raporu göndermeyi unutma", "send_message"),
    ("tr", "Elif'e taslağı göndermemiz gerekiyor", "send_message"),
    # asked as a question, a negative form is a polite request (the router review: all lost)
    ("tr", "şu dosyayı silemez misin, yer kaplıyor: eski_yedek.zip", "delete_file"),
    ("tr", "su dosyayi silemez misin", "delete_file"),
    ("tr", "şunu Ali'ye yollayamaz mısın", "send_message"),
    ("tr", "rapor.pdf'yi masaüstüne taşıyamaz mısın", "move_file"),
    ("tr", "BANA HATIRLATMAZ MISIN YARIN", "reminder_add"),
    ("tr", "cuma 3'ü takvime ekleyemez misin", "calendar_add"),
    # the negated span ends where the message turns to what it asks
    ("en", "don't know if you can but delete old.txt", "delete_file"),
    ("en", "don't send it but save it to my notes", "memory_save"),
    ("en", "don't worry about the format then just send it to kaan", "send_message"),
    ("en", "no need to call him so text him instead", "send_message"),
    ("en", "don't text her so remind me to call her tonight", "reminder_add"),
    # "if you don't ...," is a condition: the request after its comma keeps its tool
    ("en", "if you don't hear from me by 6, text kaan", "send_message"),
    ("en", "IF YOU DON'T SEE ME BY 8, REMIND ME TO LOCK THE DOOR", "reminder_add"),
    # "why don't you ..." asks for it
    ("en", "why don't you remind me at 6 tomorrow to call mom", "reminder_add"),
    ("en", "WHY DON'T YOU ADD THE DENTIST TO MY CALENDAR FOR FRIDAY 3PM", "calendar_add"),
    ("en", "why don't you text kaan that I'm running late", "send_message"),
])
def test_what_only_looks_negated_keeps_its_tool(language: str, message: str, tool: str) -> None:
    assert tool in shown(message, language)
